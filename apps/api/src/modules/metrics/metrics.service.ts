import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { API_CONFIG, type ApiConfig } from '../../config/config';

/** The most label sets of decisions tallied at once. */
const MAX_TALLIES = 100_000;

export interface DecisionTally {
  readonly labels: { tenant: string; endpoint: string; result: string; mode: string };
  count: number;
  reported: number;
}

/** The process's Prometheus registry and the metrics Tollgate records. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly decisions = new Counter({
    name: 'tollgate_decisions_total',
    help: 'Enforcement decisions by tenant (- for none, or for all when METRICS_TENANT_LABEL=false), endpoint policy (- for none), result (allowed, denied, would_deny, or why refused) and mode',
    labelNames: ['tenant', 'endpoint', 'result', 'mode'] as const,
    registers: [this.registry],
    // Checks count in plain numbers (`decisionTally`); the counter takes them when the metrics are read.
    collect: () => this.flushDecisionTallies(),
  });

  /** Decisions counted on the hot path, by label set: a number to add 1 to, handed to the counter when read. */
  private readonly tallies = new Map<string, DecisionTally>();

  /**
   * The tally of one label set of `tollgate_decisions_total`: `tally.count += 1` is all a decision costs (prom-client
   * hashes the labels on every `inc`). Bounded: flushed into the counter and forgotten when full.
   */
  decisionTally(tenantSlug: string, endpoint: string, result: string, mode: string): DecisionTally {
    // Without the tenant label (METRICS_TENANT_LABEL=false) every tenant's decisions count in the `-` series.
    const tenant = this.tenantLabel ? tenantSlug : '-';
    const key = `${tenant}\u0000${endpoint}\u0000${result}\u0000${mode}`;
    let tally = this.tallies.get(key);
    if (!tally) {
      if (this.tallies.size >= MAX_TALLIES) {
        this.flushDecisionTallies();
        this.tallies.clear();
      }
      tally = { labels: { tenant, endpoint, result, mode }, count: 0, reported: 0 };
      this.tallies.set(key, tally);
    }
    return tally;
  }

  private flushDecisionTallies(): void {
    for (const tally of this.tallies.values()) {
      if (tally.count === tally.reported) continue;
      this.decisions.inc(tally.labels, tally.count - tally.reported);
      tally.reported = tally.count;
    }
  }

  readonly decisionSeconds = new Histogram({
    name: 'tollgate_decision_redis_seconds',
    help: 'Time of the Redis script calls of the checks (one call decides a batch of one tenant\'s decisions), until the answer, an error or the deadline',
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [this.registry],
  });

  readonly degraded = this.counter('tollgate_degraded_decisions_total', 'Checks Redis did not decide, by the failure mode that answered them (open, closed: a 503, local) and why (deadline: Redis answered too late; circuit_open: not asked; redis_error: the call failed; replica: no replica acknowledged a decision of a policy that waits for one); the API logs the same counts once per cause and OUTAGE_LOG_EVERY_MS', ['mode', 'cause']);

  readonly forwardAuthSourceProblems = this.counter('tollgate_forward_auth_source_problems_total', 'Forward-auth requests whose original-request headers do not match FORWARD_AUTH_ORIGINAL: missing (the source\'s headers absent: refused with 400) or other_source (headers of another source present, ignored: a gateway that passes a client\'s headers); the API logs them once per problem and minute', ['problem']);

  readonly lateReplies = this.counter('tollgate_late_replies_total', 'Redis replies that came after a failure mode had answered, by what became of them: compensated (its charge and count undone), expired (it ran too late to act), failed (undoing it failed: counted twice), unknown (no reply)', ['outcome']);

  readonly usageDropped = this.counter('tollgate_usage_dropped_total', 'Decisions made without Redis (degraded, refused) whose usage counts a node dropped: Redis was away for longer than it could hold them');

  readonly breakerOpen = this.gauge('tollgate_redis_circuit_open', '1 while the circuit breaker in front of a Redis node is open or half-open (the decisions of the tenants whose slots it owns go to failure modes), by node: host:port of a Redis Cluster primary, redis for a single Redis, unknown for slots the client has no primary for', ['node']);

  readonly replicaAckPrimariesShort = this.gauge('tollgate_replica_ack_primaries_short', 'Redis primaries with fewer replicas online than REPLICA_ACK_REPLICAS while endpoint policies with replicaAck are in force (every such check of their slots is answered by its failure mode, cause replica); 0 without such policies. Measured on each rule set load and each /health');

  readonly ruleSetRejections = this.counter('tollgate_rule_set_rejections_total', 'Control-plane changes refused because the rule set they produce does not compile');

  readonly ruleVersion = this.gauge('tollgate_rule_set_version', 'Version of the rule set this node enforces');

  /** Whether `tollgate_decisions_total` names the tenant (METRICS_TENANT_LABEL). */
  private readonly tenantLabel: boolean;

  constructor(@Inject(API_CONFIG) config: ApiConfig) {
    this.tenantLabel = config.metrics.tenantLabel;
    collectDefaultMetrics({ register: this.registry, prefix: 'tollgate_' });
  }

  /** A counter of this registry, with its labels if it has any. */
  private counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private gauge<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }
}
