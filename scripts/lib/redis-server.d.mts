export function hasRedisServer(): boolean;
export function freePort(): Promise<number>;
/** A redis-server of the caller's own on a free port of 127.0.0.1 (or `port`), in a new temporary folder (or `dir`, kept). */
export function startRedisServer(
  name?: string,
  port?: number,
  options?: { dir?: string; detached?: boolean },
): Promise<{ url: string; port: number; dir: string; stop(): Promise<void> }>;
/** Stops the redis-server a killed run left in the kept folder `dir`; whether there was one. */
export function stopLeftoverRedis(dir: string): Promise<boolean>;
