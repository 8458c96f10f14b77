import { z } from 'zod';

/** Methods a policy can match; `*` matches every method (a policy for one method beats it). */
export const POLICY_METHODS = ['*', 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type PolicyMethod = (typeof POLICY_METHODS)[number];

/** `enforce`: deny over the limit; `shadow`: decide and count, never deny; `off`: the policy is skipped. */
export const POLICY_MODES = ['enforce', 'shadow', 'off'] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];

/** What a check of the policy does when Redis cannot answer in time: pass, answer 503, or limit ÷ nodes in memory. */
export const FAILURE_MODES = ['open', 'closed', 'local'] as const;
export type FailureMode = (typeof FAILURE_MODES)[number];

/** Whose bucket a request is counted in: the whole tenant's, one subject's (user id), or one client address's. */
export const SUBJECT_SCOPES = ['tenant', 'subject', 'ip'] as const;
export type SubjectScope = (typeof SUBJECT_SCOPES)[number];

/**
 * Where a policy's quota holds: in each region on its own (`region`: a deployment per region, each with its own Redis,
 * each admits the whole limit), or once across every region (`global`: fixed-window limits only, their windows shared
 * out among the regions and rebalanced, docs/adr/0025-one-quota-across-regions.md).
 */
export const REGION_SCOPES = ['region', 'global'] as const;
export type RegionScope = (typeof REGION_SCOPES)[number];

/** The most regions one quota is shared across (`REGIONS`). */
export const MAX_REGIONS = 64;
/** A region's name in `REGION` and `REGIONS`. */
export const REGION_NAME = /^[a-z][a-z0-9-]{0,31}$/;

export const MAX_PATTERN_LENGTH = 200;

/** RFC 3986 path characters without the ones regular expressions are made of (`$ ( ) +`, and `[ ] ^ | \ { }` are not path characters). */
const PATH_CHARS = /^[A-Za-z0-9\-._~%!&',;=:@*/]+$/;

/**
 * A policy's name: the prefix of its limits' names in check answers (`items` + `minute` → `items-minute`).
 * No `-`, so the first `-` of a qualified name always ends the policy's part.
 */
export const policyNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,15}$/, 'must be 1-16 lower-case letters, digits or _, starting with a letter');

/** The name a policy's limit has in check answers and in the limiter's keys. */
export function policyLimitName(policyName: string, limitName: string): string {
  return `${policyName}-${limitName}`;
}

/**
 * Why a route pattern is refused, or null when it is valid. A pattern is a path: it starts with `/`, has no
 * query or fragment, no empty segment; `*` is only ever a whole segment (one segment, or the rest of the path
 * when it is the last one). No regular expressions.
 */
export function routePatternProblem(pattern: string): string | null {
  if (!pattern.startsWith('/')) return 'must start with /';
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  if (/[?#]/.test(pattern)) return 'must not contain ? or # (a pattern matches the path only)';
  if (!PATH_CHARS.test(pattern)) return "may contain only letters, digits, / and - . _ ~ % ! & ' , ; = : @ * (no regular expressions)";
  if (pattern === '/') return null;
  const segments = pattern.slice(1).split('/');
  if (segments.some((s) => s === '')) return 'must not have empty segments (// or a trailing /)';
  if (segments.some((s) => s.includes('*') && s !== '*')) return '* must be a whole segment, e.g. /v1/items/*';
  if (segments.some((s) => s.startsWith(':'))) return 'use * for a path parameter (/v1/items/*, not /v1/items/:id)';
  return null;
}

export const routePatternSchema = z
  .string()
  .superRefine((pattern, ctx) => {
    const problem = routePatternProblem(pattern);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe('A path such as /v1/items/*: * is a whole segment (one segment; the rest of the path when last). No regular expressions, no query.');

/** One segment of a parsed pattern: a literal, `*` (exactly one segment), or a last `*` (the rest, one or more). */
export type PatternSegment = { kind: 'literal'; value: string } | { kind: 'one' } | { kind: 'rest' };

/** The segments of a valid pattern (`/` has none). */
export function parseRoutePattern(pattern: string): PatternSegment[] {
  if (pattern === '/') return [];
  const parts = pattern.slice(1).split('/');
  return parts.map((part, i) => (part !== '*' ? { kind: 'literal', value: part } : i === parts.length - 1 ? { kind: 'rest' } : { kind: 'one' }));
}
