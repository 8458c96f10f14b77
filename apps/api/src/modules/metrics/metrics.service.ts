import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The process's Prometheus registry and the metrics Tollgate records. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly decisions = new Counter({
    name: 'tollgate_decisions_total',
    help: 'Enforcement decisions by tenant, endpoint policy (- for none), result (allowed, denied, would_deny, or why refused) and mode',
    labelNames: ['tenant', 'endpoint', 'result', 'mode'] as const,
    registers: [this.registry],
  });

  readonly decisionSeconds = new Histogram({
    name: 'tollgate_decision_redis_seconds',
    help: 'Time of the Redis script calls of the checks (one call decides a batch of one tenant\'s decisions), until the answer, an error or the deadline',
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [this.registry],
  });

  readonly degraded = new Counter({
    name: 'tollgate_degraded_decisions_total',
    help: 'Decisions Redis did not make (down, slow, circuit open), by the failure mode that made them',
    labelNames: ['mode'] as const,
    registers: [this.registry],
  });

  readonly breakerOpen = new Gauge({
    name: 'tollgate_redis_circuit_open',
    help: '1 while the circuit breaker in front of Redis is open or half-open (decisions go to failure modes)',
    registers: [this.registry],
  });

  readonly ruleSetRejections = new Counter({
    name: 'tollgate_rule_set_rejections_total',
    help: 'Control-plane changes refused because the rule set they produce does not compile',
    registers: [this.registry],
  });

  readonly ruleVersion = new Gauge({
    name: 'tollgate_rule_set_version',
    help: 'Version of the rule set this node enforces',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'tollgate_' });
  }
}
