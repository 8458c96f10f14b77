import { ipSchema, MAX_COST, MAX_TENANT_KEY_LENGTH, safeText, slug } from '@tollgate/domain';
import { MAX_ORIGINAL_PATH_BYTES } from '../forward-auth-original';
import type { CheckTarget } from '../use-cases/check-quota.use-case';

/** What a descriptor entry's key says about the check (RLS_ENTRY_KEYS maps entry keys to these). */
export const ENTRY_ROLES = ['tenant', 'key', 'method', 'path', 'endpoint', 'subject', 'ip'] as const;
export type EntryRole = (typeof ENTRY_ROLES)[number];

/**
 * The entry keys Envoy's rate limit actions produce by default, and what each names: `remote_address` (the action of
 * that name) is the client's address, `generic_key` (the action of that name, e.g. a route's name) the subject.
 */
export const DEFAULT_ENTRY_KEYS = 'tenant:tenant,api_key:key,method:method,path:path,endpoint:endpoint,subject:subject,generic_key:subject,remote_address:ip';

/** The most descriptors one request may carry, entries one descriptor may carry, and bytes of a domain or entry key. */
export const RLS_MAX_DESCRIPTORS = 16;
export const RLS_MAX_ENTRIES = 16;
export const RLS_MAX_NAME_BYTES = 128;

/** The endpoint of a request whose descriptors name no method and path: no policy matches it, usage counts route `other`. */
export const NO_ENDPOINT = '-';

export interface RlsMapping {
  /** Entry key → what it names. */
  entryKeys: ReadonlyMap<string, EntryRole>;
  /** `domain` names the tenant (its slug) when no entry does; false: the domain is only checked, not read. */
  domainIsTenant: boolean;
  /** `refuse`: an entry key not in `entryKeys` is INVALID_ARGUMENT; `ignore`: it is skipped. */
  unknownEntries: 'ignore' | 'refuse';
}

/** The request as protobuf decodes it (field names as in the .proto; 64-bit integers as strings). */
export interface RateLimitRequestMessage {
  domain?: string;
  descriptors?: {
    entries?: { key?: string; value?: string }[];
    hits_addend?: { value?: string | number } | null;
  }[];
  hits_addend?: number;
}

/** The one check a ShouldRateLimit asks for, and how: consume `cost`, or peek (a descriptor's `hits_addend: 0`). */
export interface RlsCheck {
  target: CheckTarget;
  /**
   * `key_invalid`: the API key is empty, longer than any key or holds control characters: refused without a look-up as on forward-auth (an answer, not
   * INVALID_ARGUMENT: Envoy lets a request through on an error unless `failure_mode_deny`, and the key is the client's).
   */
  refusal?: 'key_invalid';
  cost: number;
  operation: 'consume' | 'peek';
  descriptorCount: number;
}

/** A request Tollgate will not decide: answered INVALID_ARGUMENT with this message. */
export class RlsInvalid extends Error {}

/** Parses `RLS_ENTRY_KEYS` (`entry_key:role,…`); throws on a role that is not one of ENTRY_ROLES. */
export function parseEntryKeys(value: string): Map<string, EntryRole> {
  const keys = new Map<string, EntryRole>();
  for (const pair of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [key, role, ...rest] = pair.split(':').map((p) => p.trim());
    if (!key || !role || rest.length > 0 || !(ENTRY_ROLES as readonly string[]).includes(role)) {
      throw new Error(`"${pair}" is not entry_key:role with role one of ${ENTRY_ROLES.join(', ')}`);
    }
    keys.set(key, role as EntryRole);
  }
  return keys;
}

const encoder = new TextEncoder();
/** Longer than `bytes` in UTF-8; encoded only when it might be (a UTF-16 unit is at most 3 bytes): most names are short. */
const tooLong = (s: string, bytes: number) => s.length > bytes || (s.length * 3 > bytes && encoder.encode(s).length > bytes);
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The check of a ShouldRateLimit request. Every descriptor's entries are read into one check: one tenant (`tenant`
 * slug or `api_key`, or the domain when RLS_DOMAIN_IS_TENANT), one endpoint (`method` + `path`, or `endpoint`), one
 * subject and one client address. Two descriptors that name different values for the same thing would be two checks
 * — which could not be decided all or nothing in one script call — so that request is refused (INVALID_ARGUMENT).
 * Cost: the descriptors' `hits_addend` (all that set one must agree; `0` is a peek), else the request's (`0` is
 * unset: 1), else 1.
 */
export function mapRateLimitRequest(request: RateLimitRequestMessage, mapping: RlsMapping): RlsCheck {
  const domain = request.domain ?? '';
  if (domain === '') throw new RlsInvalid('domain must not be empty');
  checkName('domain', domain);
  const descriptors = request.descriptors ?? [];
  if (descriptors.length === 0) throw new RlsInvalid('descriptors must hold at least one descriptor');
  if (descriptors.length > RLS_MAX_DESCRIPTORS) throw new RlsInvalid(`descriptors must hold at most ${RLS_MAX_DESCRIPTORS} descriptors`);

  const named = new Map<EntryRole, string>();
  let descriptorCost: number | undefined;
  descriptors.forEach((descriptor, i) => {
    const entries = descriptor.entries ?? [];
    if (entries.length === 0) throw new RlsInvalid(`descriptors.${i}.entries must hold at least one entry`);
    if (entries.length > RLS_MAX_ENTRIES) throw new RlsInvalid(`descriptors.${i}.entries must hold at most ${RLS_MAX_ENTRIES} entries`);
    entries.forEach((entry, j) => {
      const where = `descriptors.${i}.entries.${j}`;
      const key = entry.key ?? '';
      if (key === '') throw new RlsInvalid(`${where}.key must not be empty`);
      checkName(`${where}.key`, key);
      const role = mapping.entryKeys.get(key);
      if (role === undefined) {
        if (mapping.unknownEntries === 'refuse') throw new RlsInvalid(`${where}.key "${key}" is not an entry key Tollgate reads`);
        // Not read, so not judged: a value Tollgate ignores never turns a request into an error.
        return;
      }
      const value = valueOf(role, entry.value ?? '', `${where}.value`);
      const earlier = named.get(role);
      if (earlier !== undefined && earlier !== value) {
        throw new RlsInvalid(`${where}: the descriptors name two different values for ${role}; one request is one check, decided all or nothing`);
      }
      named.set(role, value);
    });
    if (descriptor.hits_addend !== undefined && descriptor.hits_addend !== null) {
      const hits = Number(descriptor.hits_addend.value ?? 0);
      if (!Number.isSafeInteger(hits) || hits < 0 || hits > MAX_COST) throw new RlsInvalid(`descriptors.${i}.hits_addend must be 0 to ${MAX_COST}`);
      if (descriptorCost !== undefined && descriptorCost !== hits) throw new RlsInvalid(`descriptors.${i}.hits_addend differs from another descriptor's; one request has one cost`);
      descriptorCost = hits;
    }
  });
  const requestHits = request.hits_addend ?? 0;
  if (requestHits > MAX_COST) throw new RlsInvalid(`hits_addend must be at most ${MAX_COST}`);
  const cost = descriptorCost ?? (requestHits || 1);

  const target = targetOf(named, domain, mapping);
  const refusal = target.key !== undefined && (target.key === '' || target.key.length > MAX_TENANT_KEY_LENGTH || CONTROL.test(target.key)) ? { refusal: 'key_invalid' as const } : {};
  const how = cost === 0 ? { cost: 1, operation: 'peek' as const } : { cost, operation: 'consume' as const };
  return { target, ...refusal, ...how, descriptorCount: descriptors.length };
}

/**
 * An entry's value, as the check reads it. A path (`:path`, as Envoy sends it) loses its query (policies match paths
 * only) and may be as long as forward-auth's original path; an API key is bounded later (a longer one is a refusal);
 * anything else is text of 1 to 256 bytes without control characters, as in a check's body.
 */
function valueOf(role: EntryRole, raw: string, field: string): string {
  if (role === 'path' || role === 'endpoint') {
    const value = raw.split('?')[0] ?? '';
    if (value === '' || tooLong(value, MAX_ORIGINAL_PATH_BYTES) || CONTROL.test(value)) throw new RlsInvalid(`${field} must be 1 to ${MAX_ORIGINAL_PATH_BYTES} bytes without control characters (the query left out)`);
    return value;
  }
  if (role === 'key') return raw;
  if (!safeText.safeParse(raw).success) throw new RlsInvalid(`${field} must be 1 to 256 bytes without control characters`);
  return raw;
}

function checkName(field: string, value: string): void {
  if (tooLong(value, RLS_MAX_NAME_BYTES)) throw new RlsInvalid(`${field} must be at most ${RLS_MAX_NAME_BYTES} bytes`);
  if (CONTROL.test(value)) throw new RlsInvalid(`${field} must not hold control characters`);
}

function targetOf(named: Map<EntryRole, string>, domain: string, mapping: RlsMapping): CheckTarget {
  const tenant = named.get('tenant') ?? (named.has('key') || !mapping.domainIsTenant ? undefined : domain);
  const key = named.get('key');
  if (tenant !== undefined && key !== undefined) throw new RlsInvalid('the descriptors name both a tenant and an API key; give one');
  if (tenant === undefined && key === undefined) throw new RlsInvalid('no descriptor names the tenant (an entry read as tenant or key)');
  if (tenant !== undefined && !slug.safeParse(tenant).success) throw new RlsInvalid('the tenant must be a slug: 1-63 lower-case letters, digits or dashes');

  const endpoint = endpointOf(named);
  const subject = named.get('subject');
  const ip = named.get('ip');
  if (ip !== undefined && !ipSchema.safeParse(ip).success) throw new RlsInvalid('the client address must be an IPv4 or IPv6 address');
  return { ...(tenant !== undefined ? { tenant } : { key: key! }), endpoint, ...(subject !== undefined ? { subject } : {}), ...(ip !== undefined ? { ip } : {}) };
}

function endpointOf(named: Map<EntryRole, string>): string {
  const endpoint = named.get('endpoint');
  const method = named.get('method');
  const path = named.get('path');
  if (endpoint !== undefined) {
    if (method !== undefined || path !== undefined) throw new RlsInvalid('the descriptors name both an endpoint and a method or path; give one');
    if (!/^[A-Za-z]{1,32} \//.test(endpoint)) throw new RlsInvalid('the endpoint must be "METHOD /path"');
    return endpoint;
  }
  if (path === undefined && method === undefined) return NO_ENDPOINT;
  if (path === undefined || method === undefined) throw new RlsInvalid('a method needs a path and a path a method (or give endpoint)');
  if (!/^[A-Za-z]{1,32}$/.test(method)) throw new RlsInvalid('the method must be 1 to 32 letters');
  if (!path.startsWith('/')) throw new RlsInvalid('the path must start with /');
  return `${method.toUpperCase()} ${path}`;
}
