import { Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  AppError,
  ErrorCode,
  restoreAnswerSchema,
  restorePreviewSchema,
  ruleSetDiffSchema,
  ruleSetPageSchema,
  ruleSetSummarySchema,
  ruleSetVersionSchema,
  ruleVersionQuery,
  type RuleSetVersionSummary,
} from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { changesBetween, changesOfVersions, withoutKeyHashes } from '@tollgate/rule-store';
import { summarizeChanges } from '@tollgate/rules';
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

@ApiTags('rule sets')
@ApiBearerAuth()
@Controller('v1/admin/rule-sets')
export class RuleSetsController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly restoreRuleSet: RestoreRuleSetUseCase,
  ) {}

  /**
   * Versions, newest first, a page at a time (`nextBefore` is null on the last page), each with its number of changes
   * and its summary: the same lines its own answer lists.
   */
  @Get()
  @ApiOperation({ summary: 'List rule set versions' })
  @Access('operator')
  @ApiAnswer(ruleSetPageSchema)
  @ApiQueryOf(listQuery, { before: 'nextBefore of the previous page' })
  async list(@Query(new ZodPipe(listQuery)) query: z.infer<typeof listQuery>): Promise<{ items: RuleSetVersionSummary[]; nextBefore: number | null }> {
    const rows = await this.prisma.ruleSetVersion.findMany({
      where: query.before ? { version: { lt: query.before } } : {},
      orderBy: { version: 'desc' },
      take: query.pageSize + 1,
      select: { version: true, createdAt: true, author: true, diff: true },
    });
    const page = rows.slice(0, query.pageSize);
    const changes = await changesOfVersions(this.prisma, page);
    return {
      items: page.map((r) => {
        const mine = changes.get(r.version) ?? [];
        return { version: r.version, createdAt: r.createdAt.toISOString(), author: r.author, changes: mine.length, summary: summarizeChanges(mine) };
      }),
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

  /** What changes going from one version to another (either order), one line per change. */
  @Get('diff')
  @ApiOperation({ summary: 'Compare two rule set versions' })
  @Access('operator')
  @ApiAnswer(ruleSetDiffSchema)
  @ApiQueryOf(diffQuery, { from: { example: 1 }, to: { example: 2 } })
  async diff(@Query(new ZodPipe(diffQuery)) query: z.infer<typeof diffQuery>) {
    const changes = await changesBetween(this.prisma, query.from, query.to);
    if (!changes) throw new AppError(ErrorCode.NOT_FOUND, `rule set version ${query.from} or ${query.to} not found`);
    return { from: query.from, to: query.to, summary: summarizeChanges(changes), changes };
  }

  /**
   * One version: its changes against the version before it, the compiled rule set (keys without their hashes) and
   * what it was compiled from.
   */
  @Get(':version')
  @ApiOperation({ summary: 'Get a rule set version' })
  @Access('operator')
  @ApiAnswer(ruleSetVersionSchema)
  async get(@Param('version', VersionPipe) version: number) {
    const row = await this.prisma.ruleSetVersion.findUnique({ where: { version } });
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, 'rule set version not found');
    const changes = (await changesOfVersions(this.prisma, [row])).get(version) ?? [];
    return {
      version: row.version,
      createdAt: row.createdAt.toISOString(),
      author: row.author,
      summary: summarizeChanges(changes),
      changes,
      compiled: withoutKeyHashes(row.compiled),
      source: row.source as unknown,
    };
  }

  /** What restoring this version would undo now, against the version in force; nothing is written. */
  @Get(':version/restore-preview')
  @ApiOperation({ summary: 'Preview what restoring a rule set version undoes' })
  @Access('operator')
  @ApiAnswer(restorePreviewSchema)
  restorePreview(@Param('version', VersionPipe) version: number) {
    return this.restoreRuleSet.preview(version);
  }

  /** Rolls back to this version's plans and limits, published as a new version; the answer lists what it undid. */
  @Post(':version/restore')
  @ApiOperation({ summary: 'Restore a rule set version' })
  @HttpCode(200)
  @Access('operator')
  @ApiAnswer(restoreAnswerSchema)
  restore(@CurrentCaller() caller: Caller, @Param('version', VersionPipe) version: number) {
    return this.restoreRuleSet.execute(actorOf(caller), version);
  }
}
