export interface BackoffOptions {
  /** The first retry's ceiling; doubled on each attempt. Default 100 ms. */
  baseMs?: number;
  /** The ceiling never grows past this. Default 10 s. */
  maxMs?: number;
}

/**
 * Exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): a uniform
 * delay in [0, min(maxMs, baseMs × 2^attempt)), attempt counting from 0. `random` is injectable for tests.
 */
export function fullJitterDelay(attempt: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxMs ?? 10_000, (options.baseMs ?? 100) * 2 ** attempt);
  return Math.floor(random() * ceiling);
}
