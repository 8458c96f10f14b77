import type { Clock } from './contract';

/** The process's wall clock: the memory engine's default, and the Redis engine's reference for calendar windows. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to: drives both engines through the same instants in tests. */
export class ManualClock implements Clock {
  constructor(private ms: number) {}

  now(): number {
    return this.ms;
  }

  advance(ms: number): void {
    this.ms += ms;
  }

  set(ms: number): void {
    this.ms = ms;
  }
}
