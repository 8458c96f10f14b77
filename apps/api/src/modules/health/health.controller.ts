import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { PrismaClient } from '@tollgate/db';
import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { Access } from '../../common/access.decorator';
import { PRISMA, REDIS } from '../../infra/infra.module';
import { RuleCache } from '../rules/rule-cache.service';

const PROBE_TIMEOUT_MS = 1_000;
type Status = 'up' | 'down';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly rules: RuleCache,
  ) {}

  /**
   * Readiness: 200 when Postgres and Redis answer and this node enforces a rule set that Redis holds too, else 503
   * with what is wrong. `ruleSet`: `loaded`, `missing` (none yet), `foreign` (Redis holds another installation's) or
   * `not-committed` (Redis holds a version Postgres does not have); the last two name both rule sets in `mismatch`.
   */
  @Get('health')
  @Access('public')
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const [postgres, redis] = await Promise.all([
      probe(() => this.prisma.$queryRaw`select 1`),
      probe(() => this.redis.ping()),
    ]);
    const ruleVersion = this.rules.version();
    const { enforcing, refusal } = this.rules.status();
    const ruleSet = refusal ? refusal.reason : ruleVersion === null ? 'missing' : 'loaded';
    const ok = postgres === 'up' && redis === 'up' && ruleSet === 'loaded';
    void reply.status(ok ? 200 : 503);
    return {
      status: ok ? 'ok' : 'degraded',
      checks: { postgres, redis, ruleSet },
      ruleVersion,
      ...(refusal ? { mismatch: { enforcing: enforcing && { installation: enforcing.installation, version: enforcing.version }, redis: { installation: refusal.redis.installation, version: refusal.redis.version } } } : {}),
    };
  }
}

async function probe(fn: () => Promise<unknown>): Promise<Status> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([fn(), timeout]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}
