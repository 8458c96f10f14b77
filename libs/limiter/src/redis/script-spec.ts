import type { AlgorithmName, LimitRule } from '../contract';

/**
 * The boundary of lua/limit.lua in one place: every position of KEYS and ARGV the script reads, a decision's and a
 * rule's fields, the reply's fields and the usage-count (tally) format. protocol.ts builds calls and reads replies with
 * it; script-spec.spec.ts checks the Lua files' reads, and the script header's positions, against it. What each field
 * means is said in the script's header (lua/limit.lua) and in includes/tally.lua.
 */

/** ARGV[1] to ARGV[5], in this order: what a call carries besides its decisions. */
export const CALL_ARGV = ['now', 'ttlExtension', 'counts', 'expiresAt', 'takeBack'] as const;
export type CallArg = (typeof CALL_ARGV)[number];

/** ARGV position (from 1) of a call's own argument. */
export function argvOf(name: CallArg): number {
  return CALL_ARGV.indexOf(name) + 1;
}

/** Where a call's decisions start in ARGV (`FIRST_DECISION` in lua/limit.lua). */
export const FIRST_DECISION_ARGV = CALL_ARGV.length + 1;

/**
 * A decision's ARGV, in order: operation (`consume`, or with a shadow policy `consume/<k>`), amount, tally, then the
 * number of its rules followed by their ARGV, or `sameRules` / `sameKeys`. Instead of a decision, `repeat` and a count.
 */
export const DECISION_ARGV = ['operation', 'amount', 'tally', 'rules'] as const;

/** The marks a decision's ARGV may hold instead of a value. */
export const MARKS = {
  /** Tally: the decision before's. Rules: those of the decision before (its keys are its own). */
  same: '=',
  /** Rules and keys both those of the decision before (no keys of its own in KEYS). */
  sameKeys: '==',
  /** Then n: n more decisions exactly like the one before. */
  repeat: '+',
  /** Between an operation and the index (from 1) of a shadow policy's first rule. */
  shadow: '/',
} as const;

/** Every rule's first ARGV. */
export const RULE_ARGV = ['code', 'limit', 'windowMs'] as const;

/** What a rule's algorithm adds after `RULE_ARGV` (a bucket sends its rate and unit in place of limit and window). */
export const ALGORITHM_ARGV = {
  fixed_window: [],
  sliding_log: [],
  sliding_window: ['pattern'],
  token_bucket: ['capacity', 'pattern'],
  leaky_bucket: ['capacity', 'pattern'],
  leaky_bucket_shaper: ['capacity', 'pattern'],
  gcra: ['capacity', 'pattern'],
} as const satisfies Record<AlgorithmName, readonly string[]>;

/**
 * The code a fixed window that is one quota across regions (`LimitRule.regions`) sends instead of its algorithm's
 * (its key is a fixed window's all the same), and what it adds after `RULE_ARGV` (before a calendar window's bounds):
 * the region's share of the limit, its allowance in a window the coordinator gave it none.
 */
export const REGION_FIXED_WINDOW_CODE = 'fg';
export const REGION_ARGV = ['share'] as const;

/** What a fixed window on a calendar (window 0) adds: its window's bounds and the next one's end. */
export const CALENDAR_ARGV = ['start', 'end', 'nextEnd'] as const;

/**
 * KEYS, in order: the usage hash the call counts into (with `counts`), the one it takes usage back from (with
 * `takeBack`), then per decision with keys of its own, per rule, `KEYS_OF` of its algorithm's keys.
 */
export const COUNTED_HASH_KEY = 1;

/**
 * How many KEYS a rule has: a fixed window its own and the counter earlier versions kept, and one quota across regions
 * also its allowance and the tenant's set of such windows (`REGION_KEYS`); the others one.
 */
export function keysOf(rule: Pick<LimitRule, 'algorithm' | 'regions'>): number {
  if (rule.algorithm !== 'fixed_window') return 1;
  return rule.regions ? 2 + REGION_KEYS.length : 2;
}

/** The keys a fixed window that is one quota across regions adds after its two (redis/keys.ts names them). */
export const REGION_KEYS = ['allowance', 'globalWindows'] as const;

/**
 * The reply: one string of integers joined by single spaces. `head` first, then per decision `perDecision` and per
 * rule `perRule` (`wait`: the retry-after of a denial, else the delay), then with an injected clock `injectedTail`.
 * A call run after its expiry replies `expired` followed by Redis's now (ms) instead.
 */
export const REPLY = {
  head: ['nowMs'],
  perDecision: ['granted'],
  perRule: ['remaining', 'resetMs', 'wait'],
  injectedTail: ['redisNowMs'],
  expired: 'expired ',
} as const;

/**
 * The usage-count format, in one place: the tally a decision is counted with (`<base>`, or `<base>\t<cap>\t<route>`,
 * then a line per rule name) and every field of a tenant's minute hash. The limit script writes `fields` with `results`
 * (includes/tally.lua); the API node adds, with its flush (apps/api add-usage-counts.lua), the same fields for the
 * decisions it makes without Redis (`node.results`) and `node.fields`. libs/usage builds and reads the fields from this
 * table; script-spec.spec.ts checks the Lua's field literals against it.
 */
export const TALLY = {
  /** Between the head and each rule name. */
  line: '\n',
  /** Between a routed head's base, cap and route. */
  route: '\t',
  /** Between a field's parts. Policy ids, results, reasons and key ids hold none; a route may (it is a field's middle). */
  part: '|',
  /** The policy of a field base (`<policy id>|`) when no endpoint policy matched. */
  noPolicy: '-',
  fields: {
    /** `n|<base><result>|<reason>`: decisions. */
    decisions: 'n|',
    /** `c|<base><result>|<reason>`: units charged. */
    units: 'c|',
    /** `r|<route>|<result>|<reason>`: decisions per route. */
    perRoute: 'r|',
    /** `rr|<route>`: a route the minute counts under its own name. */
    routeKnown: 'rr|',
    /** How many routes the minute counts under their own names. */
    routeCount: 'r#',
  },
  /** A route past the cap is counted under this name. */
  otherRoute: 'other',
  /** `<result>|`: the start of an outcome, the reason (a rule's name, or nothing) after it. */
  results: { allowed: 'allowed|', denied: 'denied|', shadowDenied: 'shadow_denied|' },
  /** What only the API node writes into the same hash. */
  node: {
    fields: {
      /** `k|<key id>|<kind>`: calls made with one API key, `kind` one of `keyKinds`. */
      keyCalls: 'k|',
      /** `w|<write id>`: a flush already added (counted by no reader). */
      written: 'w|',
    },
    /** What a key's calls are counted as: every decision, those denied (whatever refused them), and peeks and refunds. */
    keyKinds: ['decisions', 'denied', 'other'],
    /** Outcomes of decisions made without Redis: by a failure mode (reason `<mode>:<cause>`), or refused (an error code). */
    results: { degradedAllowed: 'degraded_allowed|', degradedDenied: 'degraded_denied|', refused: 'refused|' },
  },
} as const;
