import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { LuaScript } from '@tollgate/lua-script';
import {
  ACTIVE_TENANTS_TTL_S,
  activeTenantsKey,
  countField,
  costField,
  DENIAL_SAMPLES_KEPT,
  denialFields,
  denialsKey,
  type DenialSample,
  isDecisionsField,
  keyField,
  type KeyCountKind,
  minuteOf,
  routeField,
  usageKey,
  USAGE_KEY_TTL_S,
  type UsageResult,
} from '@tollgate/usage';
import type { RedisClient } from '@tollgate/nest-infra';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { REDIS } from '../../infra/infra.module';
import { MetricsService } from '../metrics/metrics.service';

/** The most hash fields a node holds unwritten (Redis away): beyond, the oldest minute's counts are dropped. */
export const MAX_PENDING_FIELDS = 100_000;
/** A tenant seen this close to a minute's edge is listed in the neighbouring minute too (Redis's clock may differ). */
const CLOCK_MARGIN_MS = 5_000;
/**
 * A minute whose counts a node flushes must not have been rolled up already: the worker waits `USAGE_GRACE_S` (15 s)
 * after a minute closes. Counts flushed later than this after their minute closed go to the current minute.
 */
const LATE_AFTER_CLOSE_MS = 10_000;
/** Sample text is cut to this many characters (the endpoint and subject are the caller's). */
const SAMPLE_TEXT_MAX = 200;

/** Adds one write's counts to a minute's hash once, however often it is sent (see its header). */
const addUsageCounts = LuaScript.load(join(__dirname, 'lua'), 'add-usage-counts');

/** Counts of one tenant and minute, held until written. */
interface Counts {
  tenantId: string;
  minute: number;
  fields: Map<string, number>;
}

/** Counts sent to Redis as one write, with its id. */
type Write = Counts & { id: string };

/**
 * The node's part of usage counting (docs/adr/0015-usage-counting-and-rollups.md). Decisions Redis makes are counted
 * by the limit script itself; this service
 * - lists the tenants a node decides for in each minute's set (`active`), which is how the worker finds the hashes to
 *   roll up without scanning the keyspace: one `SADD` per tenant and minute, off the request path;
 * - counts the decisions made without Redis (refused, degraded) in memory and adds them to the same hashes every
 *   `USAGE_FLUSH_MS`; a write that fails is sent again as it was, with its id, by the next flushes (a write whose
 *   reply was lost but which Redis applied is then not added twice), up to `MAX_PENDING_FIELDS` fields;
 * - samples denials into the tenant's stream, at most `USAGE_DENIAL_SAMPLES_PER_S` a second per tenant.
 * Nothing here ever makes a check wait or fail.
 */
@Injectable()
export class UsageRecorder implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger(UsageRecorder.name);
  /** Per minute (epoch s), the tenants already listed in its set by this node. */
  private readonly listed = new Map<number, Set<string>>();
  /** Per minute, the tenants to list in its set with the next write. */
  private readonly toList = new Map<number, Set<string>>();
  /** Counts not yet in Redis: per usage hash key, field → amount. */
  private readonly pending = new Map<string, Counts>();
  /** Writes sent that did not succeed, by id: sent again unchanged, so that Redis adds each once. */
  private readonly unsent = new Map<string, Write>();
  /** Fields held in `pending` and `unsent`. */
  private pendingFields = 0;
  /** This node's writes are `<writer>.<n>`. */
  private readonly writer = randomBytes(9).toString('base64url');
  private writes = 0;
  /** Samples written in the current second, per tenant. */
  private samplesSecond = 0;
  private readonly samples = new Map<string, number>();
  private listing: NodeJS.Immediate | null = null;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  /** When flushes began to fail (epoch ms), null while they succeed. */
  private failingSince: number | null = null;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly metrics: MetricsService,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  /** Whether decisions are counted at all (USAGE_COUNTING). */
  get enabled(): boolean {
    return this.config.usage.counting;
  }

  onModuleInit(): void {
    if (!this.enabled) return;
    this.timer = setInterval(() => void this.flush(), this.config.usage.flushMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.listing) clearImmediate(this.listing);
    await this.flush();
  }

  /** The tenant (or NO_TENANT) has counts in the current minute: list it once in the minute's set. */
  active(tenantId: string, now = Date.now()): void {
    if (!this.enabled) return;
    const minute = minuteOf(now);
    if (this.listed.get(minute)?.has(tenantId)) return;
    this.list(minute, tenantId);
    const into = now - minute * 1000;
    if (into < CLOCK_MARGIN_MS) this.list(minute - 60, tenantId);
    if (into > 60_000 - CLOCK_MARGIN_MS) this.list(minute + 60, tenantId);
  }

  /**
   * A decision made without Redis: counted here, written with the next flush; per route too (`route` as routeOf names
   * it; the flush's script counts it as `other` once the tenant's minute has as many routes as it may).
   */
  count(tenantId: string, policyId: string | null, route: string, result: UsageResult, reason: string, cost: number, now = Date.now()): void {
    if (!this.enabled) return;
    const minute = minuteOf(now);
    this.add(tenantId, minute, countField(policyId, result, reason), 1);
    this.add(tenantId, minute, routeField(route, result, reason), 1);
    if (cost !== 0) this.add(tenantId, minute, costField(policyId, result, reason), cost);
    this.active(tenantId, now);
  }

  /**
   * A call made with an API key (the service key that asked, or the tenant key a check named), counted in the minute
   * of the tenant it was for: the rollup keeps it per key and sets the key's last use from it. Counted here, not by
   * the limit script: a key's calls are not part of a decision's all-or-nothing, and a node that dies loses at most
   * one flush interval of them (docs/adr/0015-usage-counting-and-rollups.md).
   */
  countKey(tenantId: string, keyId: string, kind: KeyCountKind, now = Date.now()): void {
    if (!this.enabled) return;
    this.add(tenantId, minuteOf(now), keyField(keyId, kind), 1);
    this.active(tenantId, now);
  }

  /** A denial or shadow would-deny, into the tenant's sample stream (sampled: at most so many a second). */
  sample(tenantId: string, sample: DenialSample): void {
    const perSecond = this.config.usage.denialSamplesPerSecond;
    if (!this.enabled || perSecond === 0) return;
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.samplesSecond) {
      this.samplesSecond = second;
      this.samples.clear();
    }
    const taken = this.samples.get(tenantId) ?? 0;
    if (taken >= perSecond) return;
    this.samples.set(tenantId, taken + 1);
    const fields = denialFields({ ...sample, endpoint: sample.endpoint.slice(0, SAMPLE_TEXT_MAX), subject: sample.subject.slice(0, SAMPLE_TEXT_MAX) });
    this.redis.xadd(denialsKey(tenantId), 'MAXLEN', '~', DENIAL_SAMPLES_KEPT, '*', ...fields).catch(() => {
      // A sample is a sample: one lost while Redis is away is not worth a retry.
    });
  }

  /** Writes the counts and listings held; a flush already under way is shared. Never rejects. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => (this.flushing = null));
    return this.flushing;
  }

  private list(minute: number, tenantId: string): void {
    let tenants = this.toList.get(minute);
    if (!tenants) {
      tenants = new Set();
      this.toList.set(minute, tenants);
    }
    tenants.add(tenantId);
    // Listed at the end of this turn of the event loop: the decision's own script call is sent first.
    this.listing ??= setImmediate(() => {
      this.listing = null;
      void this.writeListings();
    });
  }

  private add(tenantId: string, minute: number, field: string, amount: number): void {
    const key = usageKey(tenantId, minute);
    let entry = this.pending.get(key);
    if (!entry) {
      entry = { tenantId, minute, fields: new Map() };
      this.pending.set(key, entry);
    }
    const before = entry.fields.get(field);
    if (before === undefined) {
      if (this.pendingFields >= MAX_PENDING_FIELDS) this.dropOldest();
      this.pendingFields += 1;
    }
    entry.fields.set(field, (before ?? 0) + amount);
  }

  /** Full: the oldest minute's counts go (they are the ones most likely past their rollup already). */
  private dropOldest(): void {
    let oldest: { from: Map<string, Counts>; key: string; entry: Counts } | undefined;
    for (const from of [this.unsent, this.pending]) {
      for (const [key, entry] of from) if (!oldest || entry.minute < oldest.entry.minute) oldest = { from, key, entry };
    }
    if (!oldest) return;
    let dropped = 0;
    for (const [field, amount] of oldest.entry.fields) if (isDecisionsField(field)) dropped += amount;
    this.metrics.usageDropped.inc(dropped);
    this.pendingFields -= oldest.entry.fields.size;
    oldest.from.delete(oldest.key);
  }

  private async writeListings(): Promise<void> {
    const batch = [...this.toList];
    this.toList.clear();
    const now = Date.now();
    await Promise.all(
      batch.map(async ([minute, tenants]) => {
        try {
          await this.redis.multi().sadd(activeTenantsKey(minute), ...tenants).expire(activeTenantsKey(minute), ACTIVE_TENANTS_TTL_S).exec();
          let listed = this.listed.get(minute);
          if (!listed) {
            listed = new Set();
            this.listed.set(minute, listed);
          }
          for (const t of tenants) listed.add(t);
        } catch {
          // Listed again by the tenant's next decision, or by the next flush of counts.
        }
      }),
    );
    // Only the minutes around now are asked about again.
    for (const minute of this.listed.keys()) if (minute < minuteOf(now) - 120) this.listed.delete(minute);
  }

  private async write(): Promise<void> {
    const now = Date.now();
    const current = minuteOf(now);
    const entries: Write[] = [...this.unsent.values(), ...[...this.pending.values()].map((entry) => ({ ...entry, id: `${this.writer}.${(this.writes += 1)}` }))];
    this.pending.clear();
    this.unsent.clear();
    this.pendingFields = 0;
    let failed = 0;
    let reason = '';
    await Promise.all(
      entries.map(async (entry) => {
        // Too late for its own minute's rollup: counted in the current minute instead (in every total, late).
        const late = (entry.minute + 60) * 1000 + LATE_AFTER_CLOSE_MS < now;
        const minute = late ? current : entry.minute;
        if (late) this.list(minute, entry.tenantId);
        // One script call per hash: all its counts or none, once (the minute's set, in another slot, is listed apart).
        const args: (string | number)[] = [entry.id, USAGE_KEY_TTL_S, this.config.usage.routesPerTenantMinute];
        for (const [field, amount] of entry.fields) args.push(field, amount);
        try {
          await addUsageCounts.run(this.redis, [usageKey(entry.tenantId, entry.minute), usageKey(entry.tenantId, minute)], args);
        } catch (err) {
          this.keep(entry);
          failed += entry.fields.size;
          reason = err instanceof Error ? err.message : String(err);
        }
      }),
    );
    // Nothing to write says nothing about Redis.
    if (entries.length > 0) this.reportWrite(failed, reason);
  }

  /** One line when flushes start failing (not one per hash or per flush), and one when counts are written again. */
  private reportWrite(failed: number, reason: string): void {
    if (failed > 0 && this.failingSince === null) {
      this.failingSince = Date.now();
      this.log.warn(`could not write ${failed} usage count(s) to Redis; kept and retried every ${this.config.usage.flushMs} ms (${reason})`);
    } else if (failed === 0 && this.failingSince !== null) {
      this.log.log(`usage counts written to Redis again after ${Math.round((Date.now() - this.failingSince) / 1000)} s`);
      this.failingSince = null;
    }
  }

  /** A write that failed, kept to be sent again as it was (its id says whether Redis has it already). */
  private keep(entry: Write): void {
    while (this.pendingFields + entry.fields.size > MAX_PENDING_FIELDS && this.pendingFields > 0) this.dropOldest();
    this.unsent.set(entry.id, entry);
    this.pendingFields += entry.fields.size;
  }
}
