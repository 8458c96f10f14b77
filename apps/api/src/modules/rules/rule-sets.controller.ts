import { Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppError, ErrorCode, restoreAnswerSchema, ruleSetDiffSchema, ruleSetPageSchema, ruleSetSummarySchema, ruleSetVersionSchema, ruleVersionQuery } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { diffJson, type JsonChange } from '@tollgate/rules';
import { z } from 'zod';
import { Access } from '../../common/access.decorator';
import { ApiAnswer } from '../../common/api-json-body';
import { actorOf } from '../../common/audit';
import { type Caller, CurrentCaller } from '../../common/caller';
import { VersionPipe } from '../../common/id.pipe';
import { ApiQueryOf } from '../../common/api-query';
import { ZodPipe } from '../../common/zod.pipe';
import { pageSizeQuery } from '../../common/page-size';
import { PRISMA } from '../../infra/infra.module';
import { RestoreRuleSetUseCase } from './use-cases/restore-rule-set.use-case';

const listQuery = z.strictObject({
  ...pageSizeQuery,
  /** Versions older than this one (the previous page's last version). */
  before: ruleVersionQuery.optional(),
});
const diffQuery = z.strictObject({ from: ruleVersionQuery, to: ruleVersionQuery });

interface VersionSummary {
  version: number;
  createdAt: string;
  author: string;
  changes: number;
}

@ApiTags('rule sets')
@ApiBearerAuth()
@Controller('v1/admin/rule-sets')
export class RuleSetsController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly restoreRuleSet: RestoreRuleSetUseCase,
  ) {}

  /** Versions, newest first, a page at a time (`nextBefore` is null on the last page). */
  @Get()
  @ApiOperation({ summary: 'List rule set versions' })
  @Access('operator')
  @ApiAnswer(ruleSetPageSchema)
  @ApiQueryOf(listQuery, { before: 'nextBefore of the previous page' })
  async list(@Query(new ZodPipe(listQuery)) query: z.infer<typeof listQuery>): Promise<{ items: VersionSummary[]; nextBefore: number | null }> {
    const rows = await this.prisma.ruleSetVersion.findMany({
      where: query.before ? { version: { lt: query.before } } : {},
      orderBy: { version: 'desc' },
      take: query.pageSize + 1,
      select: { version: true, createdAt: true, author: true, diff: true },
    });
    const page = rows.slice(0, query.pageSize);
    return {
      items: page.map((r) => ({ version: r.version, createdAt: r.createdAt.toISOString(), author: r.author, changes: Array.isArray(r.diff) ? r.diff.length : 0 })),
      nextBefore: rows.length > query.pageSize ? (page.at(-1)?.version ?? null) : null,
    };
  }

  /** The newest committed rule set version. */
  @Get('current')
  @ApiOperation({ summary: 'Get the current rule set' })
  @Access('operator')
  @ApiAnswer(ruleSetSummarySchema)
  async current(): Promise<{ version: number; createdAt: string; author: string }> {
    const row = await this.prisma.ruleSetVersion.findFirst({
      orderBy: { version: 'desc' },
      select: { version: true, createdAt: true, author: true },
    });
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, 'no rule set version yet');
    return { version: row.version, createdAt: row.createdAt.toISOString(), author: row.author };
  }

  /** What changed between two versions (either order), leaf by leaf. */
  @Get('diff')
  @ApiOperation({ summary: 'Compare two rule set versions' })
  @Access('operator')
  @ApiAnswer(ruleSetDiffSchema)
  @ApiQueryOf(diffQuery, { from: { example: 1 }, to: { example: 2 } })
  async diff(@Query(new ZodPipe(diffQuery)) query: z.infer<typeof diffQuery>): Promise<{ from: number; to: number; changes: JsonChange[] }> {
    const [from, to] = await Promise.all([this.compiled(query.from), this.compiled(query.to)]);
    return { from: query.from, to: query.to, changes: diffJson(bodyOf(from), bodyOf(to)) };
  }

  /** One version: the compiled rule set, its diff against the version before it, and what it was compiled from. */
  @Get(':version')
  @ApiOperation({ summary: 'Get a rule set version' })
  @Access('operator')
  @ApiAnswer(ruleSetVersionSchema)
  async get(@Param('version', VersionPipe) version: number) {
    const row = await this.prisma.ruleSetVersion.findUnique({ where: { version } });
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, 'rule set version not found');
    // `diff` is what diffJson wrote when the version was committed (a JSON column, so typed only as JSON).
    return {
      version: row.version,
      createdAt: row.createdAt.toISOString(),
      author: row.author,
      diff: row.diff as unknown as JsonChange[],
      compiled: row.compiled as unknown,
      source: row.source as unknown,
    };
  }

  /** Rolls back to this version's plans and limits, published as a new version. */
  @Post(':version/restore')
  @ApiOperation({ summary: 'Restore a rule set version' })
  @HttpCode(200)
  @Access('operator')
  @ApiAnswer(restoreAnswerSchema)
  restore(@CurrentCaller() caller: Caller, @Param('version', VersionPipe) version: number) {
    return this.restoreRuleSet.execute(actorOf(caller), version);
  }

  private async compiled(version: number): Promise<unknown> {
    const row = await this.prisma.ruleSetVersion.findUnique({ where: { version }, select: { compiled: true } });
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, `rule set version ${version} not found`);
    return row.compiled;
  }
}

/** The rules without their number and compile time, which always differ. */
function bodyOf(compiled: unknown): unknown {
  if (!compiled || typeof compiled !== 'object') return compiled;
  const { version: _v, compiledAt: _c, ...body } = compiled as Record<string, unknown>;
  return body;
}
