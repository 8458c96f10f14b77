/** Where the SDK's limiters read the time and wait: `systemClock` in production, a `ManualClock` in tests. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

interface Sleeper {
  at: number;
  seq: number;
  resolve: () => void;
}

/**
 * A clock that moves only when told to. `advance(ms)` wakes the sleepers in time order, setting the time to
 * each one's instant and letting its continuation run before the next, so tests are exact and never timed.
 */
export class ManualClock implements Clock {
  private readonly sleepers: Sleeper[] = [];
  private seq = 0;

  constructor(private ms = 0) {}

  now(): number {
    return this.ms;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const sleeper: Sleeper = { at: this.ms + Math.max(0, ms), seq: this.seq++, resolve };
      const onAbort = () => {
        this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
        reject(signal?.reason);
      };
      sleeper.resolve = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(sleeper);
    });
  }

  /** Number of pending sleeps (e.g. to assert that a waiter is waiting). */
  get pending(): number {
    return this.sleepers.length;
  }

  /** Moves the time forward by `ms`, waking every sleeper due on the way, in order. */
  async advance(ms: number): Promise<void> {
    const end = this.ms + ms;
    await settle();
    for (;;) {
      const next = this.nextDue(end);
      if (!next) break;
      this.sleepers.splice(this.sleepers.indexOf(next), 1);
      this.ms = next.at;
      next.resolve();
      await settle();
    }
    this.ms = end;
    await settle();
  }

  private nextDue(end: number): Sleeper | undefined {
    let best: Sleeper | undefined;
    for (const s of this.sleepers) {
      if (s.at <= end && (!best || s.at < best.at || (s.at === best.at && s.seq < best.seq))) best = s;
    }
    return best;
  }
}

/** Lets every pending promise continuation run (a macrotask turn drains the microtask queue). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
