import type { PrismaClient } from '@tollgate/db';
import type { Clock } from '@tollgate/limiter';
import { type ActiveRule, activeRules } from './alert-rules';
import { advance, type Observation, type StateRun } from './alert-states';
import type { EventPublisher } from './event-publisher';

const MINUTE_MS = 60_000;

export interface ConditionsRun {
  deniedRate: StateRun;
  platformDegraded: StateRun;
  skippedRules: number;
}

/**
 * The stateful rules (docs/adr/0018-alerts.md), from the usage rows in Postgres: the worker's rollup writes the open
 * minute to `usage_minute` on every run, so the last minutes are near-live (within a rollup interval plus a node's
 * flush). Every rule is one query, whatever the number of tenants.
 */
export class ConditionEvaluator {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly publisher: EventPublisher,
    private readonly clock: Clock,
  ) {}

  async run(): Promise<ConditionsRun> {
    const nowMs = this.clock.now();
    const run: ConditionsRun = { deniedRate: empty(), platformDegraded: empty(), skippedRules: 0 };
    const denied = await activeRules(this.prisma, 'denied_rate');
    for (const rule of denied.rules) {
      const p = rule.params;
      const observations = await this.deniedRates(rule, nowMs);
      add(run.deniedRate, await advance(this.prisma, this.publisher, {
        rule, pendingMs: p.pendingMinutes * MINUTE_MS, holdMs: p.holdMinutes * MINUTE_MS, firing: 'denied_rate.firing', resolved: 'denied_rate.resolved',
      }, observations, nowMs));
    }
    const degraded = await activeRules(this.prisma, 'platform_degraded');
    // One reading for every platform rule: they differ in their times, not in what they read.
    const observation = degraded.rules.length > 0 ? await this.degraded(nowMs) : null;
    for (const rule of degraded.rules) {
      const p = rule.params;
      if (!observation) break;
      add(run.platformDegraded, await advance(this.prisma, this.publisher, {
        rule, pendingMs: p.forSeconds * 1000, holdMs: p.holdMinutes * MINUTE_MS, firing: 'platform.degraded.firing', resolved: 'platform.degraded.resolved',
      }, [observation], nowMs));
    }
    run.skippedRules = denied.skipped.length + degraded.skipped.length;
    return run;
  }

  /**
   * Per tenant the rule watches, the share of its decisions denied by a limit over the rule's last `windowMinutes`
   * minutes (the open one included), refused calls (bad keys, suspended tenants) not counted as decisions; usage of
   * tenants deleted since is left out (usage rows outlive their tenant). The rule's condition holds at `minDecisions`
   * decisions or more and a share above `ratePercent`.
   */
  private async deniedRates(rule: ActiveRule<'denied_rate'>, nowMs: number): Promise<Observation[]> {
    const p = rule.params;
    const from = new Date(Math.floor(nowMs / MINUTE_MS) * MINUTE_MS - (p.windowMinutes - 1) * MINUTE_MS);
    const to = new Date(nowMs);
    const rows = await this.prisma.$queryRaw<{ tenant_id: string; decisions: bigint; denied: bigint }[]>`
      SELECT m.tenant_id::text AS tenant_id, sum(m.decisions)::bigint AS decisions,
             coalesce(sum(m.decisions) FILTER (WHERE m.result = 'denied'), 0)::bigint AS denied
      FROM usage_minute m JOIN tenants t ON t.id = m.tenant_id
      WHERE m.bucket >= ${from} AND m.bucket <= ${to} AND m.result <> 'refused'
        AND (${rule.tenantId}::uuid IS NULL OR m.tenant_id = ${rule.tenantId}::uuid)
        AND (${rule.planId}::uuid IS NULL OR t.plan_id = ${rule.planId}::uuid)
      GROUP BY m.tenant_id`;
    return rows.map((r) => {
      const decisions = Number(r.decisions);
      const denied = Number(r.denied);
      const percent = decisions === 0 ? 0 : Math.round((denied * 10_000) / decisions) / 100;
      const holds = decisions >= p.minDecisions && denied * 100 > p.ratePercent * decisions;
      return { tenantId: r.tenant_id, holds, details: { decisions, denied, percent, ratePercent: p.ratePercent, windowMinutes: p.windowMinutes } };
    });
  }

  /**
   * Whether decisions were made by a failure mode in this minute or the last (usage counts them as `degraded_allowed`
   * and `degraded_denied`, with the reason `<failure mode>:<cause>`, or the failure mode alone when counted before
   * causes were), with how many of each failure mode.
   */
  private async degraded(nowMs: number): Promise<Observation> {
    const from = new Date(Math.floor(nowMs / MINUTE_MS) * MINUTE_MS - MINUTE_MS);
    const rows = await this.prisma.$queryRaw<{ reason: string; decisions: bigint }[]>`
      SELECT split_part(reason, ':', 1) AS reason, sum(decisions)::bigint AS decisions FROM usage_minute
      WHERE bucket >= ${from} AND bucket <= ${new Date(nowMs)} AND result IN ('degraded_allowed', 'degraded_denied')
      GROUP BY 1 ORDER BY 1`;
    const byMode = Object.fromEntries(rows.map((r) => [r.reason, Number(r.decisions)]));
    const decisions = rows.reduce((sum, r) => sum + Number(r.decisions), 0);
    return { tenantId: null, holds: decisions > 0, details: { degradedDecisions: decisions, byFailureMode: byMode } };
  }
}

function empty(): StateRun {
  return { opened: 0, fired: 0, repeated: 0, resolved: 0, dropped: 0 };
}

function add(into: StateRun, run: StateRun): void {
  into.opened += run.opened;
  into.fired += run.fired;
  into.repeated += run.repeated;
  into.resolved += run.resolved;
  into.dropped += run.dropped;
}
