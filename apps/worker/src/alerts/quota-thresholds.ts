import type { PrismaClient } from '@tollgate/db';
import { type CompiledTenant, DAY_S, type LimitSpec, type OutgoingEvent, policyLimitName, type RuleSet } from '@tollgate/domain';
import { calendarWindowAt, type Clock, type LimitRule, type Limiter } from '@tollgate/limiter';
import { effectivePolicies, toLimitRule } from '@tollgate/rules';
import { type ActiveRule, activeRules, watches } from './alert-rules';
import type { EventPublisher } from './event-publisher';
import type { RuleSetSource } from './rule-set-source';

/** A limit of one tenant that at least one rule watches, as the engine runs it. */
interface Watched {
  tenant: CompiledTenant;
  rule: LimitRule;
  /** `[rule]`, one array for every run: the engine keeps what it derives from a rule array by its identity. */
  one: readonly LimitRule[];
  rules: ActiveRule<'quota_threshold'>[];
}

/** A limit's state as a peek read it: used units of its capacity in the window [start, end). */
interface Reading {
  used: number;
  capacity: number;
  windowStart: number;
  windowEnd: number;
}

/** Thresholds of one rule reached in one window of one tenant's limit. */
interface Candidate {
  rule: ActiveRule<'quota_threshold'>;
  tenant: CompiledTenant;
  limit: string;
  reading: Reading;
  reached: number[];
}

export interface QuotaRun {
  tenants: number;
  /** Limits peeked, and those with units used in their window. */
  peeked: number;
  used: number;
  /** Rule × limit pairs at or above a threshold, and those with a threshold not recorded yet. */
  reached: number;
  fired: number;
  reset: number;
  skippedRules: number;
}

export interface QuotaEvaluatorOptions {
  /** Tenants whose limits are peeked at once (each tenant's peeks are one script call). */
  concurrency?: number;
}

/** How many (rule, tenant, limit, window) keys one look-up of recorded crossings takes. */
const LOOKUP_CHUNK = 5_000;
const RESET_BATCH = 1_000;
/** Candidates recorded in one transaction. */
const RECORD_CHUNK = 500;

/**
 * Quota thresholds (docs/adr/0018-alerts.md): peeks every watched limit of every active tenant (a peek charges and
 * counts nothing), and records each threshold reached in a window once — a row of `alert_threshold_crossings` whose
 * primary key is (rule, tenant, limit, window start, threshold), so two evaluators or a retried job cannot record it
 * twice. Thresholds first recorded together make one alert and one `quota.threshold_crossed` event. Alerts of ended
 * windows are resolved (and `quota.window_reset` sent for rules that ask for it).
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
    const run: QuotaRun = { tenants: 0, peeked: 0, used: 0, reached: 0, fired: 0, reset: 0, skippedRules: skipped.length };
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
      run.fired = await this.recordAll(fresh);
    }
    run.reset = await this.resetEndedWindows(new Map(rules.map((r) => [r.id, r])));
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

  private async recordAll(candidates: Candidate[]): Promise<number> {
    let fired = 0;
    // In the order of their keys, chunks too: every transaction takes its crossings' locks in one global order.
    const sorted = [...candidates].sort((a, b) => compare(windowKey(a.rule.id, a.tenant.id, a.limit, a.reading.windowStart), windowKey(b.rule.id, b.tenant.id, b.limit, b.reading.windowStart)));
    for (let i = 0; i < sorted.length; i += RECORD_CHUNK) fired += await this.record(sorted.slice(i, i + RECORD_CHUNK));
    return fired;
  }

  /**
   * One transaction for a chunk of candidates: their thresholds are inserted as crossings (in one order of their keys,
   * so that two evaluators lock them alike), and those another evaluator inserted first (it holds them until it
   * commits; then they conflict) are left out. Each candidate with thresholds left makes one alert, which its
   * crossings then name, and one event.
   */
  private record(chunk: Candidate[]): Promise<number> {
    const now = new Date(this.clock.now());
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
      if (crossed.size === 0) return 0;
      const alerts = [...crossed].map(([c, thresholds]) => ({ c, thresholds: thresholds.sort((a, b) => a - b) }));
      const ids = await tx.$queryRaw<{ id: bigint }[]>`SELECT nextval(pg_get_serial_sequence('alerts', 'id')) AS id FROM generate_series(1, ${alerts.length})`;
      const rows = alerts.map((a, i) => ({ ...a, id: ids[i]!.id, details: { thresholds: a.thresholds, used: a.c.reading.used, capacity: a.c.reading.capacity, percent: percentOf(a.c.reading) } }));
      await tx.$executeRaw`
        INSERT INTO alerts (id, rule_id, kind, tenant_id, state, limit_name, window_start, window_end, started_at, fired_at, details)
        SELECT k.id, k.rule_id, 'quota_threshold', k.tenant_id, 'firing', k.limit_name, k.window_start, k.window_end, ${now}, ${now}, k.details::jsonb
        FROM unnest(${rows.map((r) => r.id)}::bigint[], ${rows.map((r) => r.c.rule.id)}::uuid[], ${rows.map((r) => r.c.tenant.id)}::uuid[],
                    ${rows.map((r) => r.c.limit)}::text[], ${rows.map((r) => new Date(r.c.reading.windowStart))}::timestamptz[],
                    ${rows.map((r) => new Date(r.c.reading.windowEnd))}::timestamptz[], ${rows.map((r) => JSON.stringify(r.details))}::text[])
             AS k(id, rule_id, tenant_id, limit_name, window_start, window_end, details)`;
      await tx.$executeRaw`
        UPDATE alert_threshold_crossings c SET alert_id = k.id
        FROM unnest(${rows.map((r) => r.id)}::bigint[], ${rows.map((r) => r.c.rule.id)}::uuid[], ${rows.map((r) => r.c.tenant.id)}::uuid[],
                    ${rows.map((r) => r.c.limit)}::text[], ${rows.map((r) => new Date(r.c.reading.windowStart))}::timestamptz[])
             AS k(id, rule_id, tenant_id, limit_name, window_start)
        WHERE c.rule_id = k.rule_id AND c.tenant_id = k.tenant_id AND c.limit_name = k.limit_name AND c.window_start = k.window_start AND c.alert_id IS NULL`;
      await this.publisher.publish(
        tx,
        rows.map(({ c, thresholds, id, details }) => ({
          type: 'quota.threshold_crossed' as const,
          tenantId: c.tenant.id,
          dedupKey: `quota.threshold_crossed:${c.rule.id}:${c.tenant.id}:${c.limit}:${c.reading.windowStart}:${thresholds.join('+')}`,
          data: {
            alertId: String(id),
            rule: { id: c.rule.id, name: c.rule.name },
            tenant: { id: c.tenant.id, slug: c.tenant.slug },
            limit: c.limit,
            ...details,
            windowStart: new Date(c.reading.windowStart).toISOString(),
            windowEnd: new Date(c.reading.windowEnd).toISOString(),
          },
        })),
      );
      return rows.length;
    });
  }

  /**
   * Resolves the firing alerts whose window has ended, a batch at a time: a conditional update, so that of two
   * evaluators only one resolves each (and publishes its reset). One `quota.window_reset` per rule, tenant, limit and
   * window, for rules (still enabled) that ask for it.
   */
  private async resetEndedWindows(rules: Map<string, ActiveRule<'quota_threshold'>>): Promise<number> {
    const now = new Date(this.clock.now());
    let total = 0;
    for (;;) {
      const resolved = await this.prisma.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<{ rule_id: string | null; tenant_id: string | null; limit_name: string | null; window_start: Date | null; window_end: Date | null }[]>`
          UPDATE alerts SET state = 'resolved', resolved_at = window_end
          WHERE id IN (SELECT id FROM alerts WHERE kind = 'quota_threshold' AND state = 'firing' AND window_end <= ${now}
                       ORDER BY id LIMIT ${RESET_BATCH} FOR UPDATE SKIP LOCKED)
            AND state = 'firing'
          RETURNING rule_id::text AS rule_id, tenant_id::text AS tenant_id, limit_name, window_start, window_end`;
        const windows = new Map<string, (typeof rows)[number]>();
        for (const r of rows) windows.set(`${r.rule_id}|${r.tenant_id}|${r.limit_name}|${r.window_start?.getTime()}`, r);
        const resets: OutgoingEvent[] = [];
        for (const w of windows.values()) {
          const rule = w.rule_id ? rules.get(w.rule_id) : undefined;
          if (!rule?.params.notifyReset || !w.tenant_id || !w.window_start || !w.window_end) continue;
          resets.push({
            type: 'quota.window_reset',
            tenantId: w.tenant_id,
            dedupKey: `quota.window_reset:${rule.id}:${w.tenant_id}:${w.limit_name}:${w.window_start.getTime()}`,
            data: { rule: { id: rule.id, name: rule.name }, tenant: { id: w.tenant_id }, limit: w.limit_name, windowStart: w.window_start.toISOString(), windowEnd: w.window_end.toISOString() },
          });
        }
        await this.publisher.publish(tx, resets);
        return rows.length;
      });
      total += resolved;
      if (resolved < RESET_BATCH) return total;
    }
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
      limits.push({ tenant, rule, one: [rule], rules: watching });
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

function percentOf(r: Reading): number {
  return Math.round((r.used * 10_000) / r.capacity) / 100;
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
