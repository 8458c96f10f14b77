import type { CompiledPolicy, CompiledServiceKey, CompiledTenant, CompiledTenantKey, Region, RevokedTenantKey, RuleSet } from '@tollgate/domain';
import { buildPolicyIndex, matchPolicy, type PolicyIndex } from '@tollgate/rules';
import { type RuleSetRevision } from '@tollgate/rule-store';
import { ROUTE_OTHER } from '@tollgate/usage';
import { type LimitSet, policyLimitSet, tenantLimitSet } from './limit-set';

/** The most (tenant, endpoint) → limit set answers remembered at once. */
export const ENDPOINT_CACHE_SIZE = 50_000;
/** …and the most characters of their keys (a tenant's slug and the endpoint): 8 Mi, about 16 MB of one-byte strings. */
export const ENDPOINT_CACHE_KEY_CHARS = 8 * 1024 * 1024;

interface TenantEntry {
  readonly tenant: CompiledTenant;
  readonly own: LimitSet;
  /** Limit sets with each policy that applies to the tenant, made the first time a check needs one. */
  readonly withPolicy: Map<string, LimitSet>;
}

/**
 * A rule set as this node enforces it: its lookups indexed once when the version is loaded (docs/adr/0012-the-decision-plan.md).
 * A check asks for the tenant (by slug or key hash), then `limitSetFor(tenant, endpoint)`; everything the decision needs is
 * in the limit set. Tenants, keys and policies are in Maps: a slug such as `constructor` is a slug like any other.
 */
export class EnforcedRuleSet {
  private readonly tenants: Map<string, TenantEntry>;
  private readonly serviceKeys: Map<string, CompiledServiceKey>;
  private readonly tenantKeys: Map<string, CompiledTenantKey>;
  private readonly revokedTenantKeys: Map<string, RevokedTenantKey>;
  private readonly policyIndex: PolicyIndex;
  /**
   * The limit set of a (tenant, endpoint) as asked: services ask about the same few endpoints over and over. Bounded by
   * entries and by the length of its keys, forgotten at once when full (endpoints with ids in their paths can be
   * many, and forward-auth paths long).
   */
  private readonly endpoints = new BoundedCache<LimitSet>(ENDPOINT_CACHE_SIZE, ENDPOINT_CACHE_KEY_CHARS);

  /**
   * `localNodes`: the nodes the `local` failure mode divides each limit among (each limit set carries this node's share).
   * `region`: this deployment's among the installation's (REGION, REGIONS), whose share of a global policy's limits it
   * decides; null: one region.
   */
  constructor(
    readonly ruleSet: RuleSet,
    readonly revision: RuleSetRevision,
    private readonly localNodes: number,
    private readonly region: Region | null = null,
  ) {
    this.tenants = new Map(Object.values(ruleSet.tenants).map((t) => [t.slug, { tenant: t, own: tenantLimitSet(t, localNodes), withPolicy: new Map() }]));
    this.serviceKeys = new Map(ruleSet.serviceKeys.map((k) => [k.hash, k]));
    this.tenantKeys = new Map(ruleSet.tenantKeys.map((k) => [k.hash, k]));
    this.revokedTenantKeys = new Map(ruleSet.revokedTenantKeys.map((k) => [k.hash, k]));
    this.policyIndex = buildPolicyIndex(ruleSet.policies);
  }

  get version(): number {
    return this.ruleSet.version;
  }

  tenant(slug: string): CompiledTenant | undefined {
    return this.tenants.get(slug)?.tenant;
  }

  /** The service key with this SHA-256 hash, if it exists in this rule set. */
  serviceKey(hash: string): CompiledServiceKey | undefined {
    return this.serviceKeys.get(hash);
  }

  /** The tenant key with this SHA-256 hash, if it is live in this rule set (revoked keys are not). */
  tenantKey(hash: string): CompiledTenantKey | undefined {
    return this.tenantKeys.get(hash);
  }

  /** The revoked tenant key with this hash, if this rule set still keeps it (the most recently revoked): whose it was. */
  revokedTenantKey(hash: string): RevokedTenantKey | undefined {
    return this.revokedTenantKeys.get(hash);
  }

  /**
   * The limit set of a check of `tenant` (of this rule set) at `endpoint` (`METHOD /path?query`; anything else names no
   * route): the most specific policy that matches (libs/rules policy-matcher), `off` ones left out.
   */
  limitSetFor(tenant: CompiledTenant, endpoint: string): LimitSet {
    const key = `${tenant.slug}\u0000${endpoint}`;
    let limitSet = this.endpoints.get(key);
    if (limitSet === undefined) {
      const entry = this.tenants.get(tenant.slug)!;
      const route = parseEndpoint(endpoint);
      const policy = route ? matchPolicy(this.policyIndex, { tenant: tenant.slug, plan: tenant.plan }, route.method, route.path) : null;
      limitSet = policy && policy.mode !== 'off' ? this.withPolicy(entry, policy) : entry.own;
      this.endpoints.set(key, limitSet);
    }
    return limitSet;
  }

  /** What the endpoint cache holds now (entries, characters of keys); its bounds are ENDPOINT_CACHE_*. */
  endpointCacheSize(): { entries: number; keyChars: number } {
    return this.endpoints.size;
  }

  private withPolicy(entry: TenantEntry, policy: CompiledPolicy): LimitSet {
    let limitSet = entry.withPolicy.get(policy.id);
    if (!limitSet) {
      limitSet = policyLimitSet(entry.own, policy, this.localNodes, this.region);
      entry.withPolicy.set(policy.id, limitSet);
    }
    return limitSet;
  }
}

/** `POST /v1/messages?x=1` → method and path; anything else names no route (no policy applies). */
export function parseEndpoint(endpoint: string): { method: string; path: string } | null {
  const match = /^([A-Za-z]+) (\/[^?#\s]*)/.exec(endpoint);
  return match ? { method: match[1]!.toUpperCase(), path: match[2]! } : null;
}

/**
 * The route usage counts a check under: `METHOD /path` with the method in capitals and the path without its query,
 * fragment and empty segments (`get /v1//items/?page=2` is `GET /v1/items`), as endpoint policies match it; `other`
 * (ROUTE_OTHER) for an endpoint that names no route.
 */
export function routeOf(endpoint: string): string {
  const route = parseEndpoint(endpoint);
  if (!route) return ROUTE_OTHER;
  return `${route.method} /${route.path.split('/').filter((s) => s !== '').join('/')}`;
}

/**
 * A Map with string keys that cannot outgrow two bounds: a number of entries and the total length of its keys.
 * When a new entry would pass either, everything is forgotten at once: cheaper than tracking recency, and the caches
 * that use it hold answers that are cheap to compute again. Keys built from request input (paths with ids in them)
 * can be many and long; a bound on entries alone let 50,000 keys of a few KB each take hundreds of MB.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();
  private chars = 0;

  constructor(
    readonly maxEntries: number,
    /** The most UTF-16 code units of all keys together (as many bytes for the one-byte strings of ASCII keys). */
    readonly maxKeyChars: number,
  ) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (this.entries.has(key)) {
      this.entries.set(key, value);
      return;
    }
    if (key.length > this.maxKeyChars) return;
    if (this.entries.size >= this.maxEntries || this.chars + key.length > this.maxKeyChars) this.clear();
    // A copy, not the key as given: a key built from a slice of a larger string (a path cut from a header that also
    // held a long query) can keep all of that string alive in V8, whatever its own length, and the bound would not
    // hold. Only new keys are copied, and only when they are not yet remembered.
    this.entries.set(detached(key), value);
    this.chars += key.length;
  }

  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }

  /** How many entries, and how many characters of keys, are held now. */
  get size(): { entries: number; keyChars: number } {
    return { entries: this.entries.size, keyChars: this.chars };
  }
}

/** The same string in memory of its own (UTF-16 round trip: exact for every JavaScript string, lone surrogates too). */
function detached(value: string): string {
  return Buffer.from(value, 'utf16le').toString('utf16le');
}
