import type { z } from 'zod';
import { AppError, ErrorCode } from './errors';

/**
 * Parses `input` with `schema`; on failure throws one `validation_failed` AppError naming the first bad field.
 */
export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : undefined;
  const message = issue ? `${field ? `${field}: ` : ''}${issue.message}` : 'invalid input';
  throw new AppError(ErrorCode.VALIDATION_FAILED, message, field);
}
