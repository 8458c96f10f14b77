const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P03']);
const UNAVAILABLE_MESSAGES = /connect|Connection terminated|timeout exceeded|database system is (starting|shutting)/i;

/** True when an error (or one of its causes) says Postgres cannot be reached, as opposed to a bad query. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth += 1) {
    const rec = e as { name?: string; code?: unknown; message?: unknown; cause?: unknown; originalCode?: unknown };
    if (rec.name === 'PrismaClientInitializationError') return true;
    if (typeof rec.code === 'string' && UNAVAILABLE_CODES.has(rec.code)) return true;
    if (typeof rec.originalCode === 'string' && UNAVAILABLE_CODES.has(rec.originalCode)) return true;
    if (rec.name === 'DriverAdapterError' && typeof rec.message === 'string' && UNAVAILABLE_MESSAGES.test(rec.message)) return true;
    e = rec.cause;
  }
  return false;
}
