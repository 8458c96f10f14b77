import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppError, ErrorCode, type CompiledPolicy, type CompiledServiceKey, type CompiledTenant, type CompiledTenantKey, type RuleSet } from '@tollgate/domain';
import type { LimitRule } from '@tollgate/limiter';
import type { PrismaClient } from '@tollgate/db';
import { buildPolicyIndex, ensureRuleSetPublished, matchPolicy, type PolicyIndex, ruleSetKeys, RuleSetStore, toLimitRule } from '@tollgate/rules';
import type { Redis } from 'ioredis';
import { BoundedCache } from '../../common/bounded-cache';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { PRISMA, REDIS } from '../../infra/infra.module';
import { MetricsService } from '../metrics/metrics.service';

/**
 * The rule set this node enforces, held in memory. A new version is announced on a Redis channel and
 * swapped in at once; a poll of the version number every `RULES_POLL_MS` catches a missed announcement.
 * The hot path only reads memory.
 */
@Injectable()
export class RuleCache implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger(RuleCache.name);
  private ruleSet: RuleSet | null = null;
  private serviceKeys = new Map<string, CompiledServiceKey>();
  private tenantKeys = new Map<string, CompiledTenantKey>();
  private limitRules = new Map<string, LimitRule[]>();
  private policyIndex: PolicyIndex | null = null;
  private decisionRulesCache = new Map<string, DecisionRules>();
  private readonly endpointCache = new BoundedCache<CompiledPolicy | null>(ENDPOINT_CACHE_SIZE, ENDPOINT_CACHE_KEY_CHARS);
  private subscriber: Redis | null = null;
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;

  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly store: RuleSetStore,
    private readonly metrics: MetricsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await ensureRuleSetPublished(this.prisma, this.store, 'system').catch((err: unknown) =>
      this.log.warn(`could not make sure the rule set is published (${describe(err)}); using what Redis has`),
    );
    await this.refresh();
    this.subscriber = this.redis.duplicate({ enableOfflineQueue: true, commandTimeout: undefined });
    this.subscriber.on('message', () => void this.refresh());
    this.subscriber.on('error', () => undefined); // reconnects by itself; the poll covers the gap
    await this.subscriber.subscribe(ruleSetKeys.channel).catch(() => undefined);
    this.timer = setInterval(() => void this.poll(), this.config.rules.pollMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.subscriber?.disconnect();
  }

  /** The rule set in force; 503 `rules_not_loaded` before the first one arrived. */
  current(): RuleSet {
    if (!this.ruleSet) throw new AppError(ErrorCode.RULES_NOT_LOADED, 'no rule set loaded yet; retry shortly');
    return this.ruleSet;
  }

  version(): number | null {
    return this.ruleSet?.version ?? null;
  }

  /** A tenant's limits as the engine runs them, converted once per rule set version (not per check). */
  limitRulesOf(tenantSlug: string): readonly LimitRule[] {
    return this.limitRules.get(tenantSlug) ?? [];
  }

  /**
   * SHA-256 of recently seen keys (service keys, tenant keys in checks), as the rule set indexes them. A pure
   * function of the key, so nothing here outlives a revocation: the hash is looked up in the rule set in force on
   * every request. Bounded: cleared when full.
   */
  private readonly keyHashes = new Map<string, string>();

  keyHash(key: string): string {
    let hash = this.keyHashes.get(key);
    if (hash === undefined) {
      if (this.keyHashes.size >= KEY_HASH_CACHE_SIZE) this.keyHashes.clear();
      hash = sha256Hex(key);
      this.keyHashes.set(key, hash);
    }
    return hash;
  }

  /** The service key with this SHA-256 hash, if it exists in the rule set in force. */
  serviceKey(hash: string): CompiledServiceKey | undefined {
    return this.serviceKeys.get(hash);
  }

  /** The tenant key with this SHA-256 hash, if it is live in the rule set in force (revoked keys are not). */
  tenantKey(hash: string): CompiledTenantKey | undefined {
    return this.tenantKeys.get(hash);
  }

  /** The endpoint policy for `method` `path` of a tenant (most specific wins; see libs/rules policy-matcher). */
  policyFor(tenant: CompiledTenant, method: string, path: string): CompiledPolicy | null {
    return this.policyIndex ? matchPolicy(this.policyIndex, { tenant: tenant.slug, plan: tenant.plan }, method, path) : null;
  }

  /**
   * The policy for a check's `endpoint` (`METHOD /path?query`; anything else names no route, so no policy), remembered
   * per tenant and endpoint for the rule set in force: services ask about the same few endpoints over and over.
   * Bounded by entries and by the length of its keys, forgotten at once when full: endpoints with ids in their paths
   * can be many, and forward-auth paths long.
   */
  policyForEndpoint(tenant: CompiledTenant, endpoint: string): CompiledPolicy | null {
    const key = `${tenant.slug}\u0000${endpoint}`;
    let policy = this.endpointCache.get(key);
    if (policy === undefined) {
      const route = parseEndpoint(endpoint);
      policy = route ? this.policyFor(tenant, route.method, route.path) : null;
      this.endpointCache.set(key, policy);
    }
    return policy;
  }

  /** What the endpoint cache holds now (entries, characters of keys); its bounds are ENDPOINT_CACHE_*. */
  endpointCacheSize(): { entries: number; keyChars: number } {
    return this.endpointCache.size;
  }

  /**
   * The rules of a decision for a tenant and the policy that applies (if any): the tenant's limits (plan with
   * overrides), then the policy's, named `<policy>-<limit>`. One array per (tenant, policy) and rule set version,
   * so the limiter validates it once, not on every check.
   */
  decisionRules(tenant: CompiledTenant, policy: CompiledPolicy | null): DecisionRules {
    const key = `${tenant.slug}\u0000${policy?.id ?? ''}`;
    let rules = this.decisionRulesCache.get(key);
    if (!rules) {
      const own = this.limitRulesOf(tenant.slug);
      const extra = policy ? policy.limits.map((l) => toLimitRule({ ...l, name: `${policy.name}-${l.name}` }, tenant.timeZone)) : [];
      rules = {
        rules: [...own, ...extra],
        windowS: [...tenant.limits.map((l) => l.windowS), ...(policy?.limits.map((l) => l.windowS) ?? [])],
        tenantRules: own.length,
      };
      this.decisionRulesCache.set(key, rules);
    }
    return rules;
  }

  /** Loads the stored rule set if it is newer than ours. Concurrent calls share one load. */
  refresh(): Promise<void> {
    this.refreshing ??= this.load().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async poll(): Promise<void> {
    try {
      const stored = await this.store.version();
      if (stored !== null && stored > (this.ruleSet?.version ?? 0)) await this.refresh();
    } catch {
      // Redis away: keep enforcing the rule set in memory.
    }
  }

  private async load(): Promise<void> {
    try {
      const next = await this.store.get();
      if (!next || next.version <= (this.ruleSet?.version ?? 0)) return;
      this.serviceKeys = new Map(next.serviceKeys.map((k) => [k.hash, k]));
      this.tenantKeys = new Map(next.tenantKeys.map((k) => [k.hash, k]));
      this.limitRules = new Map(Object.values(next.tenants).map((t) => [t.slug, t.limits.map((l) => toLimitRule(l, t.timeZone))]));
      this.policyIndex = buildPolicyIndex(next.policies);
      this.decisionRulesCache = new Map();
      this.endpointCache.clear();
      this.ruleSet = next;
      this.metrics.ruleVersion.set(next.version);
      this.log.log(`rule set v${next.version} in force`);
    } catch (err) {
      this.log.warn(`could not load the rule set from Redis: ${describe(err)}`);
    }
  }
}

/** The limits of one decision for the engine, each one's window in seconds (for answers). */
/** The most key hashes remembered at once. */
const KEY_HASH_CACHE_SIZE = 10_000;

/** The most (tenant, endpoint) → policy answers remembered at once… */
export const ENDPOINT_CACHE_SIZE = 50_000;
/** …and the most characters of their keys (about 8 MB): 50,000 keys of ordinary length fit. */
export const ENDPOINT_CACHE_KEY_CHARS = 8 * 1024 * 1024;

/** `POST /v1/messages?x=1` → method and path; anything else names no route (no policy applies). */
export function parseEndpoint(endpoint: string): { method: string; path: string } | null {
  const match = /^([A-Za-z]+) (\/[^?#\s]*)/.exec(endpoint);
  return match ? { method: match[1]!.toUpperCase(), path: match[2]! } : null;
}

export interface DecisionRules {
  rules: LimitRule[];
  windowS: number[];
  /** The first `tenantRules` rules are the tenant's own limits; the rest are the policy's. */
  tenantRules: number;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
