/** Node and Postgres codes that mean "cannot reach the database" rather than "bad query". */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P03']);
/** Prisma's codes for the same: can't reach, timed out, server closed the connection, pool timeout. */
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** The pg driver adapter's error kinds for the same. */
const ADAPTER_UNAVAILABLE = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

interface ErrorLike {
  name?: string;
  code?: unknown;
  originalCode?: unknown;
  cause?: unknown;
  kind?: unknown;
  meta?: { driverAdapterError?: { cause?: { kind?: unknown } } };
}

/** True when an error (or one of its causes) says Postgres cannot be reached, as opposed to a bad query. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth += 1) {
    const rec = e as ErrorLike;
    if (rec.name === 'PrismaClientInitializationError') return true;
    if (typeof rec.code === 'string' && (UNAVAILABLE_CODES.has(rec.code) || PRISMA_UNAVAILABLE.has(rec.code))) return true;
    if (typeof rec.originalCode === 'string' && UNAVAILABLE_CODES.has(rec.originalCode)) return true;
    const kind = rec.meta?.driverAdapterError?.cause?.kind ?? rec.kind;
    if (typeof kind === 'string' && ADAPTER_UNAVAILABLE.has(kind)) return true;
    e = rec.cause;
  }
  return false;
}
