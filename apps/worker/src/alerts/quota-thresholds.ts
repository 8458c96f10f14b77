import type { PrismaClient } from '@tollgate/db';
import { type CompiledTenant, DAY_S, type LimitSpec, policyLimitName, type RuleSet } from '@tollgate/domain';
import { calendarWindowAt, type Clock, type LimitRule, type Limiter, prepareRules, type PreparedRules } from '@tollgate/limiter';
import { effectivePolicies, toLimitRule } from '@tollgate/rules';
import { type ActiveRule, activeRules, watches } from './alert-rules';
import type { EventPublisher } from './event-publisher';
import { type Candidate, type Reading, recordAlerts, type Recorded, resolveEnded } from './quota-alerts';
import type { RuleSetSource } from './rule-set-source';

/** A limit of one tenant that at least one rule watches, as the engine runs it. */
interface Watched {
  tenant: CompiledTenant;
  rule: LimitRule;
  /** `[rule]`, prepared once for every run of this rule set. */
  one: PreparedRules;
  rules: ActiveRule<'quota_threshold'>[];
}

export interface QuotaRun {
  tenants: number;
  /** Limits peeked, and those with units used in their window. */
  peeked: number;
  used: number;
  /** Rule × limit pairs with a threshold reached and not recorded yet. */
  reached: number;
  /** Alerts opened; notifications sent (`quota.threshold_crossed`); crossings recorded without one (silenced, acknowledged, within the repeat interval). */
  opened: number;
  fired: number;
  held: number;
  /** Alerts resolved. */
  reset: number;
  skippedRules: number;
}

export interface QuotaEvaluatorOptions {
  /** Tenants whose limits are peeked at once (each tenant's peeks are one script call). */
  concurrency?: number;
}

/** How many (rule, tenant, limit, window) keys one look-up of recorded crossings takes. */
const LOOKUP_CHUNK = 5_000;
/** Candidates recorded in one transaction. */
const RECORD_CHUNK = 500;

/**
 * Quota thresholds (docs/adr/0018-alerts.md): peeks every watched limit of every active tenant (a peek charges and
 * counts nothing), and records each threshold reached in a window once — a row of `alert_threshold_crossings` whose
 * primary key is (rule, tenant, limit, window start, threshold), so two evaluators or a retried job cannot record it
 * twice. Thresholds first recorded together are one `quota.threshold_crossed` notification; a rule, tenant and limit
 * have one alert while it fires, which notifies again only after the rule's repeat interval (quota-alerts.ts). Alerts
 * that are over are resolved (and `quota.window_reset` sent for rules that ask for it).
 *
 * Watched: fixed windows (calendar or not) counted for the tenant as a whole — the tenant's own limits and the limits
 * of its policies whose scope is `tenant`. Limits counted per subject or per address are not watched (one window per
 * subject, unbounded in number); nor are buckets and sliding windows, which have no window to cross a threshold in.
 */
export class QuotaEvaluator {
  private cache: { key: string; watched: Map<string, Watched[]> } | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly limiter: Limiter,
    private readonly ruleSets: RuleSetSource,
    private readonly publisher: EventPublisher,
    private readonly clock: Clock,
    private readonly options: QuotaEvaluatorOptions = {},
  ) {}

  async run(): Promise<QuotaRun> {
    const { rules, skipped } = await activeRules(this.prisma, 'quota_threshold');
    const run: QuotaRun = { tenants: 0, peeked: 0, used: 0, reached: 0, opened: 0, fired: 0, held: 0, reset: 0, skippedRules: skipped.length };
    // Ended alerts first: a crossing in a window after an alert is over opens a new alert rather than joining it.
    run.reset = await resolveEnded(this.prisma, this.publisher, new Map(rules.map((r) => [r.id, r])), this.clock.now());
    const ruleSet = rules.length > 0 ? await this.ruleSets.current() : null;
    if (ruleSet) {
      const watched = this.watched(ruleSet, rules);
      run.tenants = watched.size;
      for (const limits of watched.values()) run.peeked += limits.length;
      const readings = await this.peekAll(watched);
      run.used = readings.length;
      const candidates = reachedThresholds(readings);
      const fresh = await this.unrecorded(candidates);
      run.reached = fresh.length;
      const recorded = await this.recordAll(fresh);
      run.opened = recorded.opened;
      run.fired = recorded.notified;
      run.held = recorded.held;
    }
    return run;
  }

  /** The watched limits, made again only when the rule set or the rules changed. */
  private watched(ruleSet: RuleSet, rules: ActiveRule<'quota_threshold'>[]): Map<string, Watched[]> {
    const key = `${ruleSet.version}|${ruleSet.compiledAt}|${JSON.stringify(rules)}`;
    if (this.cache?.key !== key) this.cache = { key, watched: watchedLimits(ruleSet, rules) };
    return this.cache.watched;
  }

  /** Every watched limit's reading (limits never used in their window are left out), tenants a few at a time. */
  private async peekAll(watched: Map<string, Watched[]>): Promise<{ watched: Watched; reading: Reading }[]> {
    const out: { watched: Watched; reading: Reading }[] = [];
    const tenants = [...watched.values()];
    const concurrency = this.options.concurrency ?? 500;
    let next = 0;
    const lane = async () => {
      while (next < tenants.length) {
        const limits = tenants[next++]!;
        // Issued in one turn of the event loop: the engine sends one tenant's peeks in one script call.
        const readings = await Promise.all(limits.map((w) => this.read(w)));
        readings.forEach((reading, i) => {
          if (reading) out.push({ watched: limits[i]!, reading });
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, tenants.length) }, lane));
    return out;
  }

  /**
   * A limit's used units, read by a peek of its whole capacity: a window that is not whole refuses it and answers
   * what remains (a peek that admits it means nothing is used). Null: nothing used.
   */
  private async read({ tenant, rule, one }: Watched): Promise<Reading | null> {
    const capacity = rule.limit;
    const decision = await this.limiter.peek({ tenantId: tenant.id, cost: capacity, rules: one });
    const outcome = decision.rules[0];
    if (decision.allowed || !outcome) return null;
    const windowEnd = decision.nowMs + outcome.resetMs;
    const windowStart = rule.calendar ? calendarWindowAt(rule.calendar, windowEnd - 1).start : windowEnd - rule.windowMs;
    return { used: capacity - outcome.remaining, capacity, windowStart, windowEnd };
  }

  /** The candidates with at least one threshold not recorded yet, those thresholds alone (recorded ones looked up in bulk). */
  private async unrecorded(candidates: Candidate[]): Promise<Candidate[]> {
    const fresh: Candidate[] = [];
    for (let i = 0; i < candidates.length; i += LOOKUP_CHUNK) {
      const chunk = candidates.slice(i, i + LOOKUP_CHUNK);
      const rows = await this.prisma.$queryRaw<{ rule_id: string; tenant_id: string; limit_name: string; window_start: Date; threshold: number }[]>`
        SELECT c.rule_id::text AS rule_id, c.tenant_id::text AS tenant_id, c.limit_name, c.window_start, c.threshold
        FROM alert_threshold_crossings c
        JOIN unnest(${chunk.map((c) => c.rule.id)}::uuid[], ${chunk.map((c) => c.tenant.id)}::uuid[], ${chunk.map((c) => c.limit)}::text[],
                    ${chunk.map((c) => new Date(c.reading.windowStart))}::timestamptz[]) AS k(rule_id, tenant_id, limit_name, window_start)
          ON c.rule_id = k.rule_id AND c.tenant_id = k.tenant_id AND c.limit_name = k.limit_name AND c.window_start = k.window_start`;
      const recorded = new Set(rows.map((r) => crossingKey(r.rule_id, r.tenant_id, r.limit_name, r.window_start.getTime(), r.threshold)));
      for (const c of chunk) {
        const reached = c.reached.filter((t) => !recorded.has(crossingKey(c.rule.id, c.tenant.id, c.limit, c.reading.windowStart, t)));
        if (reached.length > 0) fresh.push({ ...c, reached });
      }
    }
    return fresh;
  }

  private async recordAll(candidates: Candidate[]): Promise<Recorded> {
    const total: Recorded = { opened: 0, notified: 0, held: 0 };
    // In the order of their keys, chunks too: every transaction takes its crossings' locks in one global order.
    const sorted = [...candidates].sort((a, b) => compare(windowKey(a.rule.id, a.tenant.id, a.limit, a.reading.windowStart), windowKey(b.rule.id, b.tenant.id, b.limit, b.reading.windowStart)));
    for (let i = 0; i < sorted.length; i += RECORD_CHUNK) {
      const r = await this.record(sorted.slice(i, i + RECORD_CHUNK));
      total.opened += r.opened;
      total.notified += r.notified;
      total.held += r.held;
    }
    return total;
  }

  /**
   * One transaction for a chunk of candidates: their thresholds are inserted as crossings (in one order of their keys,
   * so that two evaluators lock them alike), and those another evaluator inserted first (it holds them until it
   * commits; then they conflict) are left out. Each candidate with thresholds left opens or joins its alert, which its
   * crossings then name, and notifies as the rule's repeat interval, silence and the alert's acknowledgement allow.
   */
  private record(chunk: Candidate[]): Promise<Recorded> {
    const keys = chunk
      .flatMap((c) => c.reached.map((threshold) => ({ c, threshold, key: crossingKey(c.rule.id, c.tenant.id, c.limit, c.reading.windowStart, threshold) })))
      .sort((a, b) => compare(a.key, b.key));
    const byWindow = new Map(chunk.map((c) => [windowKey(c.rule.id, c.tenant.id, c.limit, c.reading.windowStart), c]));
    return this.prisma.$transaction(async (tx) => {
      const inserted = await tx.$queryRaw<{ rule_id: string; tenant_id: string; limit_name: string; window_start: Date; threshold: number }[]>`
        INSERT INTO alert_threshold_crossings (rule_id, tenant_id, limit_name, window_start, threshold)
        SELECT k.rule_id, k.tenant_id, k.limit_name, k.window_start, k.threshold
        FROM unnest(${keys.map((k) => k.c.rule.id)}::uuid[], ${keys.map((k) => k.c.tenant.id)}::uuid[], ${keys.map((k) => k.c.limit)}::text[],
                    ${keys.map((k) => new Date(k.c.reading.windowStart))}::timestamptz[], ${keys.map((k) => k.threshold)}::int[])
             WITH ORDINALITY AS k(rule_id, tenant_id, limit_name, window_start, threshold, ord)
        ORDER BY k.ord
        ON CONFLICT DO NOTHING
        RETURNING rule_id::text AS rule_id, tenant_id::text AS tenant_id, limit_name, window_start, threshold`;
      const crossed = new Map<Candidate, number[]>();
      for (const r of inserted) {
        const c = byWindow.get(windowKey(r.rule_id, r.tenant_id, r.limit_name, r.window_start.getTime()));
        if (!c) continue;
        const thresholds = crossed.get(c) ?? [];
        thresholds.push(r.threshold);
        crossed.set(c, thresholds);
      }
      if (crossed.size === 0) return { opened: 0, notified: 0, held: 0 };
      return recordAlerts(tx, this.publisher, crossed, this.clock.now());
    });
  }
}

/** Per tenant (by id), the limits the rules watch, each with the rules that watch it. */
export function watchedLimits(ruleSet: RuleSet, rules: readonly ActiveRule<'quota_threshold'>[]): Map<string, Watched[]> {
  const out = new Map<string, Watched[]>();
  for (const tenant of Object.values(ruleSet.tenants)) {
    if (tenant.status !== 'active') continue;
    const mine = rules.filter((r) => watches(r, tenant));
    if (mine.length === 0) continue;
    const limits: Watched[] = [];
    for (const { name, spec } of tenantWideLimits(ruleSet, tenant)) {
      if (spec.algorithm !== 'fixed_window') continue;
      const watching = mine.filter((r) => (r.params.limit === null ? isDaily(spec) : r.params.limit === name));
      if (watching.length === 0) continue;
      const rule = toLimitRule({ ...spec, name }, tenant.timeZone);
      limits.push({ tenant, rule, one: prepareRules([rule]), rules: watching });
    }
    if (limits.length > 0) out.set(tenant.id, limits);
  }
  return out;
}

/** The tenant's own limits and those of its policies counted for the tenant as a whole, named as checks answer them. */
function tenantWideLimits(ruleSet: RuleSet, tenant: CompiledTenant): { name: string; spec: LimitSpec }[] {
  const limits = tenant.limits.map((spec) => ({ name: spec.name, spec }));
  for (const policy of Object.values(effectivePolicies(ruleSet.policies, tenant.slug, tenant.plan))) {
    if (policy.scope !== 'tenant' || policy.mode === 'off') continue;
    for (const spec of policy.limits) limits.push({ name: policyLimitName(policy.name, spec.name), spec });
  }
  return limits;
}

function isDaily(spec: LimitSpec): boolean {
  return spec.calendar === 'day' || (spec.calendar === undefined && spec.windowS === DAY_S);
}

/** Each (rule, reading) with the thresholds its usage has reached (integer arithmetic: 80 % of 3 is reached at 3, not 2.4). */
function reachedThresholds(readings: { watched: Watched; reading: Reading }[]): Candidate[] {
  const out: Candidate[] = [];
  for (const { watched, reading } of readings) {
    for (const rule of watched.rules) {
      const reached = rule.params.thresholds.filter((t) => reading.used * 100 >= t * reading.capacity);
      if (reached.length > 0) out.push({ rule, tenant: watched.tenant, limit: watched.rule.name, reading, reached });
    }
  }
  return out;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function windowKey(ruleId: string, tenantId: string, limit: string, windowStart: number): string {
  return `${ruleId}|${tenantId}|${limit}|${windowStart}`;
}

function crossingKey(ruleId: string, tenantId: string, limit: string, windowStart: number, threshold: number): string {
  return `${ruleId}|${tenantId}|${limit}|${windowStart}|${threshold}`;
}
