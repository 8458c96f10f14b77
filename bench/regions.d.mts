// Types of bench/regions.mjs, for the test of its invariants (test/bench/regions.spec.ts).

export type Traffic = 'uniform' | 'skewed' | 'shifting';
export type Strategy = 'static' | 'rebalance' | 'rebalance, reclaim' | 'lease' | 'lease, reclaim';

export interface Options {
  limit: number;
  windowTicks: number;
  windows: number;
  demand: number;
  rebalanceTicks: number;
  leaseSize: number;
  leaseTtlTicks: number;
}

export interface Run {
  windows: { offered: number; admitted: number; over: number; unused: number }[];
  overTotal: number;
  overMax: number;
  unusedTotal: number;
  ideal: number;
  cutRegion: { asked: number; admitted: number } | null;
}

export const DEFAULTS: Options;
export const CUT: [number, number];
export const STRATEGIES: Record<Strategy, unknown>;
export const TRAFFIC: Record<Traffic, unknown>;
export function prng(seed: number): () => number;
export function scenarios(): { demand: number; n: number; traffic: Traffic; cut: [number, number] | null }[];
export function simulate(run: { n: number; traffic: Traffic; strategy: Strategy; cut?: [number, number] | null; seed?: number; options?: Partial<Options> }): Run;
