import { z } from 'zod';
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

/** A change of some of `fields` (a PATCH body): each field optional, no other field, and at least one of them. */
export function patchSchema<S extends z.ZodRawShape>(fields: S) {
  return z
    .strictObject(fields)
    .partial()
    .refine((p) => Object.keys(p).length > 0, 'nothing to change');
}
