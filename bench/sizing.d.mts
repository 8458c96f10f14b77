// Types of bench/sizing.mjs, for its test (test/bench/sizing.spec.ts).

export interface Point {
  x: number;
  y: number;
}
export function linearFit(points: Point[]): { slope: number; intercept: number };
export function xAtBudget(points: Point[], budget: number): number;
export function perCore(cpuUsPerDecision: number): number;
export function unitsFor(rate: number, perUnit: number, utilisation?: number): number;
export function spread<T>(items: readonly T[], n: number): T[];
