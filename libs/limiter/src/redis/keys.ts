import { createHash } from 'node:crypto';
import type { AlgorithmName, LimitRule } from '../contract';
import { BUCKET_ALGORITHMS, resolveRule, type ResolvedRule } from '../rules';

/**
 * The one place that names the limiter's Redis keys:
 *
 *   tg:{<tenant tag>}:<algorithm code>:<rule name>:<subject hash>
 *
 * Every key of one decision lives in the tenant's hash tag, so a Redis Cluster keeps them in one slot and
 * one script can touch them all. Neither the tenant id nor the subject appears raw: both are hashed (a
 * subject is user input; `{`, `}` or `:` in it cannot move a key to another slot or another rule). A fixed
 * window also declares `<rule key>:<window start ms>`, the counter earlier versions kept (protocol.ts `pushRuleKeys`),
 * which keeps the hash tag.
 *
 * A bucket's (and GCRA's) algorithm code carries its `partsPerUnit` (`tb600`: a token is 600 parts, see ResolvedRule):
 * its stored numbers count parts, so a limit change that changes what a part is starts the bucket afresh
 * instead of misreading it. A change that keeps the unit (burst, or limit and window scaled together) keeps it.
 */
export const ALGORITHM_CODES = {
  fixed_window: 'fw',
  sliding_log: 'sl',
  sliding_window: 'sw',
  token_bucket: 'tb',
  leaky_bucket: 'lb',
  leaky_bucket_shaper: 'ls',
  gcra: 'gc',
} as const satisfies Record<AlgorithmName, string>;

/** The key of `rule`'s state for `subject` (for tests and tools; the engines build keys from prepared parts). */
export function ruleKey(tenantId: string, rule: LimitRule, subject: string | undefined): string {
  return tenantKeyPrefix(tenantId) + ruleKeyPart(resolveRule(rule, 0)) + subjectHash(subject);
}

/** `tg:{<tenant tag>}:`, the start of every key of the tenant. */
export function tenantKeyPrefix(tenantId: string): string {
  return `tg:{${tenantTag(tenantId)}}:`;
}

/** `<algorithm code>[<parts per unit>]:<rule name>:`, the middle of a rule's key. */
export function ruleKeyPart(rule: Pick<ResolvedRule, 'algorithm' | 'name' | 'partsPerUnit'>): string {
  const parts = BUCKET_ALGORITHMS.includes(rule.algorithm) ? rule.partsPerUnit : '';
  return `${ALGORITHM_CODES[rule.algorithm]}${parts}:${rule.name}:`;
}

/**
 * The allowance of a fixed window that is one quota across regions, in this region, next to the window's key
 * (`<rule key>:al`): the window's start, the allowance and the denials it counted (lua/includes/fixed_window.lua,
 * lua/region-allowance.lua). Missing for a window: the region's share of the limit.
 */
export function allowanceKey(ruleKey: string): string {
  return `${ruleKey}:al`;
}

/**
 * `tg:{<tenant tag>}:gl`, a sorted set of the tenant's windows that are one quota across regions and were charged in
 * this region, scored by their end: what the coordinator rebalances (`globalWindowMember`). `key` is any key of the
 * tenant.
 */
export function globalWindowsKey(key: string): string {
  return `${key.slice(0, key.indexOf('}:') + 2)}gl`;
}

/** A member of `globalWindowsKey`: `<window start ms> <window end ms> <limit> <rule key>` (the limit script writes it). */
export interface GlobalWindow {
  start: number;
  end: number;
  limit: number;
  ruleKey: string;
}

/** The window a `globalWindowsKey` member names, or undefined when it is not one. */
export function parseGlobalWindow(member: string): GlobalWindow | undefined {
  const match = /^(\d+) (\d+) (\d+) (tg:\{[^}]+\}:\S+)$/.exec(member);
  if (!match) return undefined;
  return { start: Number(match[1]), end: Number(match[2]), limit: Number(match[3]), ruleKey: match[4] as string };
}

/** Every key of the tenant matches this pattern (for SCAN in tests and tools). */
export function tenantKeyPattern(tenantId: string): string {
  return `${tenantKeyPrefix(tenantId)}*`;
}

/** 60 bits of SHA-256 of the tenant id, base64url (10 characters): short, stable, no `{`, `}` or `:`. */
export function tenantTag(tenantId: string): string {
  return sha256(tenantId).slice(0, 10);
}

/**
 * 72 bits of SHA-256 of the subject (12 characters): collision-free in practice. `-` = the whole tenant. Hashed on
 * every decision (about a microsecond for a short string): nothing is remembered.
 */
export function subjectHash(subject: string | undefined): string {
  if (subject === undefined) return '-';
  return sha256(subject).slice(0, 12);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** The part of `key` Redis Cluster hashes to pick a slot: the text between the first `{` and the next `}`, if not empty. */
export function hashTagOf(key: string): string | undefined {
  const open = key.indexOf('{');
  if (open === -1) return undefined;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}

/** Redis Cluster's 16384 hash slots. */
export const CLUSTER_SLOTS = 16_384;

/**
 * The Redis Cluster hash slot of `key`: CRC16 (XMODEM) of its hash tag (or of the whole key without one) mod 16384, as
 * `CLUSTER KEYSLOT` computes it. Every key of a tenant (`tenantKeyPrefix`) has its tenant's slot.
 */
export function clusterSlotOf(key: string): number {
  const bytes = Buffer.from(hashTagOf(key) ?? key, 'utf8');
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % CLUSTER_SLOTS;
}
