import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { AppError, ErrorCode, type ErrorBody } from '@tollgate/domain';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from './database-errors';
import { describeError } from './describe-error';

/** Fastify's own errors (before a handler runs) mapped to our codes. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  // A path that is not percent-encoded UTF-8 (`/v1/admin/plans/%ff`).
  FST_ERR_BAD_URL: ErrorCode.VALIDATION_FAILED,
  // A path parameter longer than any id or name: it names nothing (as a malformed id, see IdPipe).
  FST_ERR_MAX_PARAM_LENGTH: ErrorCode.NOT_FOUND,
  FST_ERR_CTP_BODY_TOO_LARGE: ErrorCode.PAYLOAD_TOO_LARGE,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ErrorCode.VALIDATION_FAILED,
  FST_ERR_CTP_EMPTY_JSON_BODY: ErrorCode.VALIDATION_FAILED,
  FST_ERR_CTP_INVALID_JSON_BODY: ErrorCode.VALIDATION_FAILED,
};

/** Our words for Fastify's errors whose own message is not for a caller's eyes. */
const FASTIFY_MESSAGES: Partial<Record<string, string>> = {
  FST_ERR_BAD_URL: 'the path is not valid percent-encoded UTF-8',
  FST_ERR_MAX_PARAM_LENGTH: 'not found',
  FST_ERR_CTP_INVALID_JSON_BODY: 'body is not valid JSON',
};

/** Prisma's request errors that are the caller's doing. */
const PRISMA_CODES: Record<string, [ErrorCode, string]> = {
  P2002: [ErrorCode.CONFLICT, 'already exists (a unique name or slug is taken)'],
  P2003: [ErrorCode.CONFLICT, 'still referenced by other records'],
  P2025: [ErrorCode.NOT_FOUND, 'not found'],
};

const HTTP_CODES: Record<number, ErrorCode> = {
  400: ErrorCode.VALIDATION_FAILED,
  401: ErrorCode.UNAUTHENTICATED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
};

/** Maps anything thrown to `{ error: { code, message, field? } }` with the code's status. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const fastifyCode = (err as { code?: unknown }).code;
  if (typeof fastifyCode === 'string' && FASTIFY_CODES[fastifyCode]) {
    const message = FASTIFY_MESSAGES[fastifyCode] ?? (err as Error).message;
    return new AppError(FASTIFY_CODES[fastifyCode], message);
  }
  if (err instanceof HttpException) {
    const code = HTTP_CODES[err.getStatus()] ?? ErrorCode.INTERNAL;
    return new AppError(code, code === ErrorCode.INTERNAL ? 'internal error' : err.message, undefined, { cause: err });
  }
  const prismaCode = (err as { code?: unknown; name?: string }).code;
  if ((err as { name?: string }).name === 'PrismaClientKnownRequestError' && typeof prismaCode === 'string' && PRISMA_CODES[prismaCode]) {
    const [code, message] = PRISMA_CODES[prismaCode];
    return new AppError(code, message, undefined, { cause: err });
  }
  if (isDatabaseUnavailable(err)) {
    return new AppError(ErrorCode.DATABASE_UNAVAILABLE, 'the database is unavailable; retry later', undefined, { cause: err });
  }
  return new AppError(ErrorCode.INTERNAL, 'internal error', undefined, { cause: err });
}

const RETRY_AFTER_S: Partial<Record<ErrorCode, string>> = {
  database_unavailable: '5',
  redis_unavailable: '1',
  rules_not_loaded: '1',
};

export function sendError(reply: FastifyReply, err: AppError): void {
  const retryAfter = err.retryAfterMs !== undefined ? String(Math.max(1, Math.ceil(err.retryAfterMs / 1000))) : RETRY_AFTER_S[err.code];
  if (retryAfter) void reply.header('Retry-After', retryAfter);
  const body: ErrorBody = err.toBody();
  void reply.status(err.status).type('application/json').send(body);
}

/**
 * Answers anything thrown as its error body; a 5xx is logged on `log` with its code, its public message and a
 * bounded description of its cause (never the cause itself: its message can hold a whole rule set with key hashes),
 * unless its code is in `quiet` (counted and logged elsewhere, once per interval rather than once per request).
 */
export function replyWithError(log: Logger, reply: FastifyReply, exception: unknown, quiet: ReadonlySet<ErrorCode> = new Set()): void {
  const err = toAppError(exception);
  if (err.status >= 500 && !quiet.has(err.code)) log.error({ code: err.code, cause: describeError(err.cause ?? err) }, err.message);
  sendError(reply, err);
}

const frameworkLog = new Logger('Http');

/**
 * Fastify's `frameworkErrors` (both instances): what fails before routing — a path that is not valid UTF-8, a path
 * parameter over Fastify's length limit — is answered in our envelope, not in Fastify's own body.
 */
export function answerFrameworkError(error: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  replyWithError(frameworkLog, reply, error);
}

@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly log = new Logger('ErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    replyWithError(this.log, host.switchToHttp().getResponse<FastifyReply>(), exception);
  }
}
