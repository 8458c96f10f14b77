/** What a log line may say about an error: enough to find it, never what it carried (rule sets, key hashes, secrets). */
export interface ErrorDescription {
  type: string;
  code?: string;
  /** The first line of the message, at most `MAX_MESSAGE` characters, hex digests and keys blotted out. */
  message: string;
  /** Where it was thrown: at most `MAX_FRAMES` frames of the stack, without the message the stack starts with. */
  frames?: string[];
  cause?: ErrorDescription;
}

const MAX_MESSAGE = 200;
const MAX_FRAMES = 8;
const MAX_DEPTH = 3;
/** SHA-256 digests (key hashes) and anything longer that looks like one, and our keys and session tokens (`tg_…`). */
const SECRETS = /\b[0-9a-f]{32,}\b|\btg_[A-Za-z0-9_-]+/gi;

/**
 * A bounded, secret-free description of anything thrown. Errors can carry whole inputs in their message: Prisma's
 * validation errors print every argument of the call (a compiled rule set, with every key hash), zod's print the
 * issues. Only the first line of the message is kept, shortened, with digests and keys blotted out.
 */
export function describeError(err: unknown, depth = 0): ErrorDescription {
  if (!(err instanceof Error)) return { type: typeof err, message: bounded(typeof err === 'string' ? err : '(not an Error)') };
  const code = (err as { code?: unknown }).code;
  const frames = err.stack
    ?.split('\n')
    .filter((line) => /^\s+at /.test(line))
    .slice(0, MAX_FRAMES)
    .map((line) => bounded(line.trim()));
  return {
    type: err.name,
    ...(typeof code === 'string' || typeof code === 'number' ? { code: bounded(String(code)) } : {}),
    message: bounded(err.message.split('\n').find((line) => line.trim() !== '') ?? ''),
    ...(frames && frames.length > 0 ? { frames } : {}),
    ...(err.cause !== undefined && depth < MAX_DEPTH ? { cause: describeError(err.cause, depth + 1) } : {}),
  };
}

function bounded(text: string): string {
  const clean = text.replace(SECRETS, '[redacted]').trim();
  return clean.length > MAX_MESSAGE ? `${clean.slice(0, MAX_MESSAGE)}…` : clean;
}
