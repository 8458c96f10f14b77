import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { PrismaClient } from '@tollgate/db';
import type { FastifyReply } from 'fastify';
import type { RedisClient } from '@tollgate/nest-infra';
import { Cluster } from 'ioredis';
import { z } from 'zod';
import { Access } from '../../common/access.decorator';
import { ApiAnswer, openApiSchema } from '../../common/api-json-body';
import { PRISMA, REDIS } from '../../infra/infra.module';
import { ReplicaAckCoverageService } from '../rules/replica-ack-coverage';
import { RulesInForce } from '../rules/rules-in-force';
import { type ClusterHealth, clusterHealth } from './redis-cluster-health';

const PROBE_TIMEOUT_MS = 1_000;
type Status = 'up' | 'down';

const revision = z.object({ installation: z.string(), version: z.int() });
/** What /health answers, 200 or 503 alike: what is up, and the rule set this node enforces. */
const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  checks: z.object({ postgres: z.enum(['up', 'down']), redis: z.enum(['up', 'down']), ruleSet: z.enum(['loaded', 'missing', 'foreign', 'not-committed']) }),
  ruleVersion: z.int().nullable(),
  /** `foreign` or `not-committed`: the rule set this node enforces and the one Redis holds. */
  mismatch: z.object({ enforcing: revision.nullable(), redis: revision }).optional(),
  /**
   * On a Redis Cluster: each primary with its slot ranges (`0-5460`) and state (`ok`; `fail`: its CLUSTER INFO says
   * cluster_state:fail; `unreachable`: no answer within the probe's time), and the ranges no primary owns. Redis is
   * `down` unless every primary is `ok` and every slot has one.
   */
  redisCluster: z
    .object({
      state: z.enum(['ok', 'fail']),
      primaries: z.array(z.object({ node: z.string(), slots: z.array(z.string()), state: z.enum(['ok', 'fail', 'unreachable']) })),
      uncovered: z.array(z.string()),
    })
    .optional(),
  /**
   * With endpoint policies that wait for replicas (`replicaAck`) in force: how many, `REPLICA_ACK_REPLICAS`, and the
   * primaries with fewer replicas online (`redis` for a single Redis), whose checks of such policies are all answered by
   * their failure mode. Informational: it does not change the status.
   */
  replicaAck: z
    .object({
      policies: z.int(),
      replicasRequired: z.int(),
      primariesShort: z.array(z.object({ node: z.string(), replicas: z.int() })),
    })
    .optional(),
});

/** What /health/ready answers: whether this node decides checks, and the rule set it enforces. */
const readySchema = z.object({ status: z.enum(['ready', 'not-ready']), ruleVersion: z.int().nullable() });

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly rules: RulesInForce,
    private readonly replicaAck: ReplicaAckCoverageService,
  ) {}

  /**
   * Everything up: 200 when Postgres and Redis answer and this node enforces a rule set that Redis holds too, else 503
   * with what is wrong (a monitor's question; a load balancer's is /health/ready). `ruleSet`: `loaded`, `missing`
   * (none yet), `foreign` (Redis holds another installation's) or `not-committed` (Redis holds a version Postgres does
   * not have); the last two name both rule sets in `mismatch`.
   * A single Redis is up when it answers PING; a Redis Cluster when every primary answers and says the cluster is ok
   * and every slot has a primary (`redisCluster` names each primary's slot ranges and state), within a second.
   * `replicaAck` names the primaries that cannot acknowledge the policies waiting for replicas (not part of the status).
   */
  @Get('health')
  @ApiOperation({ summary: 'Get the health of this node' })
  @Access('public')
  @ApiAnswer(healthSchema, 200, 'ready')
  @ApiResponse({ status: 503, description: 'not ready: what is down or wrong', content: { 'application/json': { schema: openApiSchema(healthSchema, 'output') } } })
  async health(@Res({ passthrough: true }) reply: FastifyReply): Promise<z.output<typeof healthSchema>> {
    let cluster: ClusterHealth | undefined;
    const [postgres, redis, replicaAck] = await Promise.all([
      probe(() => this.prisma.$queryRaw`select 1`),
      this.redis instanceof Cluster
        ? clusterHealth(this.redis, PROBE_TIMEOUT_MS).then((health): Status => {
            cluster = health;
            return health.state === 'ok' ? 'up' : 'down';
          })
        : probe(() => this.redis.ping()),
      this.replicaAck.assess(this.rules.version() === null ? null : this.rules.current()),
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
      ...(cluster ? { redisCluster: cluster } : {}),
      ...(replicaAck ? { replicaAck } : {}),
      ...(refusal ? { mismatch: { enforcing: enforcing && { installation: enforcing.installation, version: enforcing.version }, redis: { installation: refusal.redis.installation, version: refusal.redis.version } } } : {}),
    };
  }

  /**
   * Whether this node serves checks: 200 once it enforces a rule set, whatever Postgres and Redis do (without Redis
   * each check is answered by its policy's failure mode), 503 before the first rule set arrived. For a load balancer's
   * readiness: /health is 503 on a Redis outage on every node at once, and taking them all out of service would turn
   * the failure modes' answers into connection errors.
   */
  @Get('health/ready')
  @ApiOperation({ summary: 'Get whether this node serves checks' })
  @Access('public')
  @ApiAnswer(readySchema, 200, 'serves checks')
  @ApiResponse({ status: 503, description: 'no rule set loaded yet', content: { 'application/json': { schema: openApiSchema(readySchema, 'output') } } })
  ready(@Res({ passthrough: true }) reply: FastifyReply): z.output<typeof readySchema> {
    const ruleVersion = this.rules.version();
    void reply.status(ruleVersion === null ? 503 : 200);
    return { status: ruleVersion === null ? 'not-ready' : 'ready', ruleVersion };
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
