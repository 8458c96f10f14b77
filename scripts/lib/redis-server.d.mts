export function hasRedisServer(): boolean;
export function freePort(): Promise<number>;
/** A redis-server of the caller's own on a free port of 127.0.0.1 (or `port`), in a new temporary folder. */
export function startRedisServer(name?: string, port?: number): Promise<{ url: string; port: number; dir: string; stop(): Promise<void> }>;
