import { Body, Inject, Param, Query } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { AppError, ErrorCode, keyAnswerSchema, keyPageSchema, keyRotationAnswerSchema, keySecretAnswerSchema, keyWithUsageSchema } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { z } from 'zod';
import { BearerController, OperatorRoute } from '../../common/route';
import { actorOf } from '../../common/audit';
import { type Caller, CurrentCaller } from '../../common/caller';
import { errorResponse } from '../../common/openapi-errors';
import { IdPipe } from '../../common/id.pipe';
import { ApiQueryOf } from '../../common/api-query';
import { ZodPipe } from '../../common/zod.pipe';
import { pageOfRows } from '../../common/page-size';
import { found } from '../../common/found';
import { PRISMA } from '../../infra/infra.module';
import { SelfLimiter } from '../auth/self-limiter';
import { listKeysQuery, type NewKey, newKeySchema, rotateSchema } from './dto/key.schemas';
import { keyInclude, toKeyView, withUsage, type KeyWithUsage } from './key-views';
import { CreateKeyUseCase, RevokeKeyUseCase, RotateKeyUseCase } from './use-cases/keys.use-cases';

/** API keys of every kind. Secrets appear once, in the answer that creates them. */
@BearerController('keys', 'v1/admin/keys')
export class KeysController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly createKey: CreateKeyUseCase,
    private readonly revokeKey: RevokeKeyUseCase,
    private readonly rotateKey: RotateKeyUseCase,
    private readonly selfLimiter: SelfLimiter,
  ) {}

  @OperatorRoute('GET', 'List API keys', keyPageSchema)
  @ApiQueryOf(listKeysQuery)
  async list(@Query(new ZodPipe(listKeysQuery)) query: z.infer<typeof listKeysQuery>): Promise<{ items: KeyWithUsage[]; nextCursor: string | null }> {
    // Newest first; the cursor is the last key seen, and a page goes on strictly after it (creation time, then id).
    const after = query.cursor ? await this.prisma.apiKey.findUnique({ where: { id: query.cursor }, select: { id: true, createdAt: true } }) : null;
    if (query.cursor && !after) throw new AppError(ErrorCode.VALIDATION_FAILED, 'no key with this id', 'cursor');
    const rows = await this.prisma.apiKey.findMany({
      where: {
        ...(query.kind ? { kind: query.kind } : {}),
        ...(query.tenantId ? { tenantId: query.tenantId } : {}),
        ...(query.revoked ? { revokedAt: query.revoked === 'true' ? { not: null } : null } : {}),
        ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.pageSize + 1,
      include: keyInclude,
    });
    const { items, nextCursor } = pageOfRows(rows, query.pageSize, toKeyView, (last) => last.id);
    return { items: await withUsage(this.prisma, items), nextCursor };
  }

  @OperatorRoute('GET :keyId', 'Get an API key', keyWithUsageSchema)
  async get(@Param('keyId', IdPipe) keyId: string): Promise<KeyWithUsage> {
    const [key] = await withUsage(this.prisma, [toKeyView(found(await this.prisma.apiKey.findUnique({ where: { id: keyId }, include: keyInclude }), 'key'))]);
    return key!;
  }

  /** Creates a key (rate limited per operator: 30 a minute). The secret is in this answer only. */
  @OperatorRoute('POST', 'Create an API key', keySecretAnswerSchema, { body: newKeySchema, example: { kind: 'service', name: 'checkout gateway', tenants: ['acme'] } })
  @ApiResponse({ status: 429, ...errorResponse(429) })
  async create(@CurrentCaller() caller: Caller, @Body(new ZodPipe(newKeySchema)) input: NewKey) {
    const actor = actorOf(caller);
    await this.selfLimiter.admit('key-creation', actor, 30, 'too many keys created; try again later');
    return this.createKey.execute(actor, input);
  }

  @OperatorRoute('POST :keyId/revoke', 'Revoke an API key', keyAnswerSchema, { status: 200 })
  revoke(@CurrentCaller() caller: Caller, @Param('keyId', IdPipe) keyId: string) {
    return this.revokeKey.execute(actorOf(caller), keyId);
  }

  /** A new secret for the same key settings; the old one works for `overlapSeconds` more (default an hour). */
  @OperatorRoute('POST :keyId/rotate', 'Rotate an API key', keyRotationAnswerSchema, { body: rotateSchema, example: { overlapSeconds: 3600 }, status: 200 })
  @ApiResponse({ status: 429, ...errorResponse(429) })
  async rotate(@CurrentCaller() caller: Caller, @Param('keyId', IdPipe) keyId: string, @Body(new ZodPipe(rotateSchema)) body: z.infer<typeof rotateSchema>) {
    const actor = actorOf(caller);
    await this.selfLimiter.admit('key-creation', actor, 30, 'too many keys created; try again later');
    return this.rotateKey.execute(actor, keyId, body.overlapSeconds);
  }
}
