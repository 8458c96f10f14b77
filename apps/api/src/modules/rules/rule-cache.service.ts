import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppError, ErrorCode, type CompiledPolicy, type CompiledServiceKey, type CompiledTenant, type CompiledTenantKey, type RuleSet } from '@tollgate/domain';
import type { LimitRule } from '@tollgate/limiter';
import type { PrismaClient } from '@tollgate/db';
import {
  buildPolicyIndex,
  isCommitted,
  matchPolicy,
  type PolicyIndex,
  revisionOf,
  ruleSetKeys,
  type RuleSetRevision,
  RuleSetStore,
  sameRevision,
  toLimitRule,
} from '@tollgate/rules';
import type { Redis } from 'ioredis';
import { BoundedCache } from '../../common/bounded-cache';
import { describeError } from '../../common/describe-error';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { PRISMA, REDIS } from '../../infra/infra.module';
import { MetricsService } from '../metrics/metrics.service';
import { InstallationService } from './installation.service';

/** Why the rule set in Redis is not enforced by this node. */
export interface RuleSetRefusal {
  /** Another installation's (a Redis shared with, or left over from, another database), or one Postgres never committed. */
  reason: 'foreign' | 'not-committed';
  redis: RuleSetRevision;
}

/**
 * The rule set this node enforces, held in memory. A new revision in Redis is announced on a channel and polled
 * for every `RULES_POLL_MS` (a missed announcement, a Redis that came back); it is enforced only if this
 * installation committed it (ADR 0008): another installation's rule set, or a version Postgres does not have, is
 * refused and reported by /health, and RulePublisher replaces it. The hot path only reads memory.
 */
@Injectable()
export class RuleCache implements OnApplicationShutdown {
  private readonly log = new Logger(RuleCache.name);
  private ruleSet: RuleSet | null = null;
  private revision: RuleSetRevision | null = null;
  private refusal: RuleSetRefusal | null = null;
  private tenants = new Map<string, CompiledTenant>();
  private serviceKeys = new Map<string, CompiledServiceKey>();
  private tenantKeys = new Map<string, CompiledTenantKey>();
  private limitRules = new Map<string, LimitRule[]>();
  private policyIndex: PolicyIndex | null = null;
  private decisionRulesCache = new Map<string, DecisionRules>();
  private readonly endpointCache = new BoundedCache<CompiledPolicy | null>(ENDPOINT_CACHE_SIZE, ENDPOINT_CACHE_KEY_CHARS);
  private subscriber: Redis | null = null;
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private loadFailing = false;

  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly store: RuleSetStore,
    private readonly installation: InstallationService,
    private readonly metrics: MetricsService,
  ) {}

  /** Loads what Redis holds, then follows its announcements and polls it (RulePublisher calls this once at start). */
  async start(): Promise<void> {
    await this.refresh();
    this.subscriber = this.redis.duplicate({ enableOfflineQueue: true, commandTimeout: undefined });
    this.subscriber.on('message', () => void this.refresh());
    this.subscriber.on('error', () => undefined); // reconnects by itself; the poll covers the gap
    await this.subscriber.subscribe(ruleSetKeys.channel).catch(() => undefined);
    this.timer = setInterval(() => void this.refresh(), this.config.rules.pollMs);
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

  /** The revision this node enforces, and why Redis's is refused (if it is): for /health. */
  status(): { enforcing: RuleSetRevision | null; refusal: RuleSetRefusal | null } {
    return { enforcing: this.revision, refusal: this.refusal };
  }

  /** A tenant of the rule set in force by slug (a Map: a slug such as `constructor` is a slug like any other). */
  tenant(slug: string): CompiledTenant | undefined {
    return this.tenants.get(slug);
  }

  /** A tenant's limits as the engine runs them, converted once per rule set version (not per check). */
  limitRulesOf(tenantSlug: string): readonly LimitRule[] {
    return this.limitRules.get(tenantSlug) ?? [];
  }

  /**
   * SHA-256 of recently seen keys (service keys, tenant keys in checks), as the rule set indexes them. A pure
   * function of the key, so nothing here outlives a revocation: the hash is looked up in the rule set in force on
   * every request. Bounded: cleared when full, and only strings as long as a key can be are remembered (any
   * bearer token reaches here: 10,000 remembered 16 KB tokens would hold 160 MB).
   */
  private readonly keyHashes = new Map<string, string>();

  keyHash(key: string): string {
    let hash = this.keyHashes.get(key);
    if (hash === undefined) {
      hash = sha256Hex(key);
      if (key.length > KEY_HASH_CACHE_MAX_KEY_CHARS) return hash;
      if (this.keyHashes.size >= KEY_HASH_CACHE_SIZE) this.keyHashes.clear();
      this.keyHashes.set(key, hash);
    }
    return hash;
  }

  /** How many key hashes are remembered now (bounded by KEY_HASH_CACHE_SIZE). */
  keyHashCacheSize(): number {
    return this.keyHashes.size;
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

  /** Enforces what Redis holds if it changed and this installation committed it. Concurrent calls share one load. */
  refresh(): Promise<void> {
    this.refreshing ??= this.load().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /**
   * Enforces `ruleSet`, which this node has just committed, unless a newer version of this installation is in force
   * already: the committing node does not wait for Redis (which may be away) to enforce its own change.
   */
  adopt(ruleSet: RuleSet, installation: string): void {
    if (this.revision?.installation === installation && this.revision.version >= ruleSet.version) return;
    this.swap({ ...ruleSet, installation }, revisionOf(ruleSet, installation));
  }

  private async load(): Promise<void> {
    try {
      const installation = await this.installation.get();
      if (installation !== null && this.revision && this.revision.installation !== installation) this.drop(installation);
      const stored = await this.store.revision();
      this.loadFailing = false;
      // Nothing in Redis (restarted empty, flushed): keep enforcing what we have; RulePublisher puts it back.
      if (!stored || sameRevision(stored, this.revision)) {
        this.refusal = null;
        return;
      }
      if (this.refusal && sameRevision(this.refusal.redis, stored)) return; // refused already
      const next = await this.store.get();
      if (!next) return;
      const revision = revisionOf(next, next.installation ?? '');
      const reason = await this.refusalReason(installation, revision);
      if (reason) return this.refuse({ reason, redis: revision }, installation);
      this.swap(next, revision);
    } catch (err) {
      // Redis away: keep enforcing the rule set in memory (said once, not on every poll).
      if (!this.loadFailing) this.log.warn(`could not read the rule set from Redis, enforcing what is in memory: ${describeError(err).message}`);
      this.loadFailing = true;
    }
  }

  /**
   * Null when this installation committed `revision`. Without Postgres (unreachable now, or since this node started)
   * only the installation can be checked: the version is believed, and checked again when Postgres answers.
   */
  private async refusalReason(installation: string | null, revision: RuleSetRevision): Promise<RuleSetRefusal['reason'] | null> {
    if (installation === null) return null;
    if (revision.installation !== installation) return 'foreign';
    try {
      return (await isCommitted(this.prisma, revision.version, revision.compiledAt)) ? null : 'not-committed';
    } catch {
      return null;
    }
  }

  private refuse(refusal: RuleSetRefusal, installation: string | null): void {
    this.refusal = refusal;
    const what = refusal.reason === 'foreign' ? `of installation ${refusal.redis.installation}, not this one (${installation})` : 'that Postgres never committed';
    this.log.error(`Redis holds rule set v${refusal.redis.version} ${what}: not enforced (${this.ruleSet ? `v${this.ruleSet.version} stays in force` : 'none in force'}); the publisher replaces it`);
  }

  /** The rule set in force turned out to be another installation's (loaded while Postgres could not say): stop enforcing it. */
  private drop(installation: string): void {
    this.log.error(`the rule set in force (v${this.revision?.version}) is of installation ${this.revision?.installation}, not this one (${installation}): dropped`);
    this.ruleSet = null;
    this.revision = null;
  }

  private swap(next: RuleSet, revision: RuleSetRevision): void {
    this.tenants = new Map(Object.values(next.tenants).map((t) => [t.slug, t]));
    this.serviceKeys = new Map(next.serviceKeys.map((k) => [k.hash, k]));
    this.tenantKeys = new Map(next.tenantKeys.map((k) => [k.hash, k]));
    this.limitRules = new Map(Object.values(next.tenants).map((t) => [t.slug, t.limits.map((l) => toLimitRule(l, t.timeZone))]));
    this.policyIndex = buildPolicyIndex(next.policies);
    this.decisionRulesCache = new Map();
    this.endpointCache.clear();
    this.ruleSet = next;
    this.revision = revision;
    this.refusal = null;
    this.metrics.ruleVersion.set(next.version);
    this.log.log(`rule set v${next.version} in force`);
  }
}

/** The limits of one decision for the engine, each one's window in seconds (for answers). */
/** The most key hashes remembered at once. */
const KEY_HASH_CACHE_SIZE = 10_000;

/** Keys are well under this (`tg_live_s_` + 32 random bytes in base64url + a checksum); anything longer is not one. */
const KEY_HASH_CACHE_MAX_KEY_CHARS = 128;

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
