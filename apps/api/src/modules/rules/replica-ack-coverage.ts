import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RuleSet } from '@tollgate/domain';
import type { RedisClient } from '@tollgate/nest-infra';
import { Cluster } from 'ioredis';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { REDIS } from '../../infra/infra.module';
import { within } from '../health/redis-cluster-health';
import { MetricsService } from '../metrics/metrics.service';

/** How long the primaries have to say how many replicas they have. */
const ASK_TIMEOUT_MS = 1_000;

/** A Redis primary and the replicas it has online, of what `replicaAck` policies need (`REPLICA_ACK_REPLICAS`). */
export interface PrimaryReplicas {
  /** `host:port` of a Redis Cluster primary; `redis` for a single Redis (or Sentinel's primary). */
  node: string;
  replicas: number;
}

/** Whether the policies that wait for a replica (`replicaAck`) can be answered from Redis at all. */
export interface ReplicaAckCoverage {
  /** Endpoint policies with `replicaAck` in the rule set in force (not `off`). */
  policies: number;
  /** `REPLICA_ACK_REPLICAS`. */
  replicasRequired: number;
  /** The primaries with fewer replicas online than that: every such check of their slots goes to its failure mode. */
  primariesShort: PrimaryReplicas[];
}

/**
 * Tells an operator when a policy waits for replicas that Redis does not have: a primary without enough replicas
 * online (`INFO replication`; each Redis Cluster primary asked) can acknowledge none of its checks, which are then all
 * answered by their failure mode (cause `replica`), 503 for `closed`. Assessed once per rule set load (a warning in
 * the log, and the gauge `tollgate_replica_ack_primaries_short`), and again on every /health, which names the primaries.
 */
@Injectable()
export class ReplicaAckCoverageService {
  private readonly log = new Logger(ReplicaAckCoverageService.name);
  private readonly required: number;

  constructor(
    @Inject(API_CONFIG) config: ApiConfig,
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly metrics: MetricsService,
  ) {
    this.required = config.limiter.replicaAck.replicas;
  }

  /** On each rule set load: a warning when `ruleSet` has `replicaAck` policies some primary cannot acknowledge. */
  async ruleSetLoaded(ruleSet: RuleSet): Promise<void> {
    const coverage = await this.assess(ruleSet);
    if (!coverage?.primariesShort.length) return;
    const short = coverage.primariesShort.map((p) => `${p.node} (${p.replicas})`).join(', ');
    this.log.warn(
      `rule set v${ruleSet.version}: ${coverage.policies} endpoint ${coverage.policies === 1 ? 'policy waits' : 'policies wait'} for ${this.required} ${this.required === 1 ? 'replica' : 'replicas'} (replicaAck), but ${coverage.primariesShort.length === 1 ? 'this Redis primary has' : 'these Redis primaries have'} fewer online: ${short}. Their checks are answered by their failure mode (cause replica) until a replica is added`,
    );
  }

  /**
   * The `replicaAck` policies of `ruleSet` and the primaries short of replicas for them (the gauge set to how many);
   * undefined without such policies (the gauge 0) or when no primary answered in time (the gauge unchanged).
   */
  async assess(ruleSet: RuleSet | null): Promise<ReplicaAckCoverage | undefined> {
    const policies = ruleSet ? replicaAckPolicies(ruleSet) : 0;
    if (policies === 0) {
      this.metrics.replicaAckPrimariesShort.set(0);
      return undefined;
    }
    const primaries = await this.primaries();
    if (primaries.length === 0) return undefined;
    const primariesShort = primaries.filter((p) => p.replicas < this.required);
    this.metrics.replicaAckPrimariesShort.set(primariesShort.length);
    return { policies, replicasRequired: this.required, primariesShort };
  }

  /** Every primary that answered within ASK_TIMEOUT_MS, with its replicas online. */
  private async primaries(): Promise<PrimaryReplicas[]> {
    const targets = this.redis instanceof Cluster ? this.redis.nodes('master').map((node) => ({ node: `${node.options.host ?? '127.0.0.1'}:${node.options.port ?? 6379}`, client: node })) : [{ node: 'redis', client: this.redis }];
    const answers = await Promise.all(
      targets.map(async ({ node, client }) => {
        try {
          return { node, replicas: onlineReplicas(await within(client.info('replication'), ASK_TIMEOUT_MS)) };
        } catch {
          return undefined; // unreachable: /health's Redis check says so
        }
      }),
    );
    return answers.filter((a): a is PrimaryReplicas => a !== undefined).sort((a, b) => a.node.localeCompare(b.node));
  }
}

/** The endpoint policies of `ruleSet` that wait for a replica and apply (not `off`), the plans' and the tenants' own. */
export function replicaAckPolicies(ruleSet: RuleSet): number {
  const { plans, tenants } = ruleSet.policies;
  return [...Object.values(plans), ...Object.values(tenants)].flatMap((table) => Object.values(table)).filter((p) => p.replicaAck === true && p.mode !== 'off').length;
}

/** Replicas of an `INFO replication` answer that are online (`slaveN:…,state=online,…`): a syncing one acknowledges nothing. */
export function onlineReplicas(info: string): number {
  return [...info.matchAll(/^slave\d+:.*\bstate=online\b/gm)].length;
}
