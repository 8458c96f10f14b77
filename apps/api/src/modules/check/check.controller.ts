import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import {
  AppError,
  batchCheckRequestSchema,
  checkRequestSchema,
  ErrorCode,
  leaseRequestSchema,
  parseOrThrow,
  type BatchCheckResult,
  type CheckRequest,
  type CheckResult,
  type LeaseRequest,
  type LeaseResult,
} from '@tollgate/domain';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { Access } from '../../common/access.decorator';
import { ApiJsonBody } from '../../common/api-json-body';
import { type Caller, CurrentCaller } from '../../common/caller';
import { ZodPipe } from '../../common/zod.pipe';
import { type CheckOperation, type CheckScope, CheckQuota } from './use-cases/check-quota.use-case';

const EXAMPLE = { tenant: 'acme', endpoint: 'POST /v1/messages', subject: 'user-42', cost: 1 };

/**
 * The enforcement API, for services with a service key. Every answer is 200 with a decision (a denial is
 * `allowed: false`); its rate-limit headers are in the body for the service to copy, and on this response.
 */
@ApiTags('enforcement')
@ApiBearerAuth()
@Controller('v1/check')
export class CheckController {
  constructor(private readonly checkQuota: CheckQuota) {}

  /** May this request pass, at this cost? Charges every limit when it may (all or nothing). */
  @Post()
  @HttpCode(200)
  @Access('service')
  @ApiJsonBody(checkRequestSchema, EXAMPLE)
  check(@CurrentCaller() caller: Caller, @Body(new ZodPipe(checkRequestSchema)) body: CheckRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.decide(caller, body, 'consume', reply);
  }

  /** The same decision without charging anything: what a check would answer now. */
  @Post('peek')
  @HttpCode(200)
  @Access('service')
  @ApiJsonBody(checkRequestSchema, EXAMPLE)
  peek(@CurrentCaller() caller: Caller, @Body(new ZodPipe(checkRequestSchema)) body: CheckRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.decide(caller, body, 'peek', reply);
  }

  /** Gives `cost` back to every limit (never above capacity), e.g. for a request that failed before doing work. */
  @Post('refund')
  @HttpCode(200)
  @Access('service')
  @ApiJsonBody(checkRequestSchema, EXAMPLE)
  refund(@CurrentCaller() caller: Caller, @Body(new ZodPipe(checkRequestSchema)) body: CheckRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.decide(caller, body, 'refund', reply);
  }

  /**
   * Takes up to `max` units from every limit at once (as many as all of them can give), to spend locally;
   * `granted` says how many. Unused units go back with `/v1/check/refund`.
   */
  @Post('lease')
  @HttpCode(200)
  @Access('service')
  @ApiJsonBody(leaseRequestSchema, { tenant: 'acme', endpoint: 'POST /v1/messages', max: 100 })
  async lease(@CurrentCaller() caller: Caller, @Body(new ZodPipe(leaseRequestSchema)) body: LeaseRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<LeaseResult> {
    const { max, ...target } = body;
    const result = await this.checkQuota.execute(scopeOf(caller), target, max, 'lease');
    void reply.headers(result.headers);
    return result;
  }

  /**
   * Several checks in one call, each decided on its own (atomically, in order per tenant), answered in order.
   * A bad check gets its own error in its place; the others are decided.
   */
  @Post('batch')
  @HttpCode(200)
  @Access('service')
  @ApiJsonBody(batchCheckRequestSchema, { checks: [EXAMPLE, { ...EXAMPLE, subject: 'user-43', cost: 3 }] })
  async batch(@CurrentCaller() caller: Caller, @Body(new ZodPipe(batchCheckRequestSchema)) body: z.infer<typeof batchCheckRequestSchema>): Promise<BatchCheckResult> {
    const scope = scopeOf(caller);
    const results = await Promise.all(
      body.checks.map(async (input, i) => {
        try {
          const { cost, ...target } = parseOrThrow(checkRequestSchema, input);
          return await this.checkQuota.execute(scope, target, cost, 'consume');
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          return { error: { code: err.code, message: `checks.${i}: ${err.message}`, ...(err.field ? { field: `checks.${i}.${err.field}` } : {}) } };
        }
      }),
    );
    // The quota store being away fails the whole batch (503), as it fails a single check.
    const unavailable = results.find((r) => 'error' in r && r.error.code === ErrorCode.REDIS_UNAVAILABLE);
    if (unavailable) throw new AppError(ErrorCode.REDIS_UNAVAILABLE, 'the quota store is unavailable; retry shortly');
    return { results };
  }

  private async decide(caller: Caller, body: CheckRequest, operation: Exclude<CheckOperation, 'lease'>, reply: FastifyReply): Promise<CheckResult> {
    const { cost, ...target } = body;
    const result = await this.checkQuota.execute(scopeOf(caller), target, cost, operation);
    void reply.headers(result.headers);
    return result;
  }
}

function scopeOf(caller: Caller): CheckScope {
  return { tenants: caller.kind === 'service' ? caller.tenants : [] };
}
