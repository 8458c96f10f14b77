import { CalendarWindows } from '../algorithms/calendar';
import type { Lease, Tally } from '../contract';
import type { Operation, ResolvedRule } from '../rules';
import { type PreparedRules, type RuleNumbers, toDecision } from '../prepared-rules';
import { CALL_ARGV, type CallArg, keysOf, MARKS, REPLY, TALLY } from './script-spec';
import { allowanceKey, globalWindowsKey } from './keys';

/**
 * The TypeScript side of lua/limit.lua's arguments and reply: what a call sends (KEYS, ARGV) and how its reply is
 * read, at the positions and with the marks script-spec.ts names. The script's header documents the same protocol;
 * protocol.spec.ts pins both ends with golden examples.
 */

/**
 * With an injected clock, TTLs (which Redis counts on its own clock) are kept this much longer than the
 * engine's time says, so that a test's real time passing never expires state early. Stale state reads as
 * empty, so this changes no decision. Production (no injected clock) keeps TTLs exact.
 */
export const INJECTED_CLOCK_TTL_EXTENSION_MS = 60_000;

/** How far back from the caller's clock calendar windows are computed: covers any sane clock skew. */
const CALENDAR_SKEW_MS = 60_000;

/**
 * The tally string of lua/limit.lua: `base`, the start of every field; `names`, the rules' names in the decision's
 * order (a denial or a shadow policy's would-deny is counted with the name of the rule that refused). Made once per
 * rule set, not per call.
 */
export function tallyText(base: string, names: readonly string[]): string {
  for (const part of [base, ...names]) {
    if (part.includes(TALLY.line)) throw new Error('a tally part must not hold a line break');
  }
  return [base, ...names].join(TALLY.line);
}

/**
 * `tally` counting its decision per route too (see lua/includes/tally.lua): `route` as usage names it, of which the
 * script keeps at most `cap` a minute under their own names in the tenant's hash (the rest count as `other`). Made per
 * call (the route is the request's); the tally's own text is made once per rule set.
 */
export function routedTally(tally: Tally, route: string, cap: number): Tally {
  if (/[\t\n]/.test(route)) throw new Error('a route must not hold a tab or a line break');
  const end = tally.text.indexOf(TALLY.line);
  const head = end === -1 ? tally.text : tally.text.slice(0, end);
  return { key: tally.key, text: [head, Math.max(0, Math.floor(cap)), route].join(TALLY.route) + (end === -1 ? '' : tally.text.slice(end)) };
}

/** One decision of a script call, as the protocol encodes it. */
export interface ScriptDecision {
  operation: Operation;
  amount: number;
  /** Counted into usage by the script (absent: not counted). */
  tally?: Tally;
  /** A consume or a peek: the index (from 0) of a shadow policy's first rule (`LimitRequest.shadowFrom`). */
  shadowFrom?: number;
  keys: string[];
  /** The rules' ARGV: the prepared rules' own array unless a calendar window added its bounds (`argsAt`). */
  ruleArgs: readonly (string | number)[];
  /** The rules decided: all of `prepared`'s, or (a late reply's refund) the first of them. */
  rules: readonly ResolvedRule[];
  prepared: PreparedRules;
}

/**
 * The keys of one rule of a decision, `key` its state's (see KEYS in lua/limit.lua): a fixed window adds the counter
 * earlier versions kept, `<key>:<window start ms>`, of the window that holds `estimate` (the engine's estimate of
 * Redis's clock), which the script reads, and writes once an earlier node made it, when that is its window
 * (lua/includes/fixed_window.lua).
 * With `earlierCounters` false (every node runs this version) it adds its own key again instead, which the script
 * reads as no counter: one GET and one SET. A fixed window that is one quota across regions adds its allowance and the
 * tenant's set of such windows. `calendar`: a calendar rule's windows as its prepared rules keep them
 * (time-zone arithmetic is slow).
 */
export function pushRuleKeys(keys: string[], key: string, rule: ResolvedRule, estimate: number, calendar?: CalendarWindows, earlierCounters = true): void {
  keys.push(key);
  if (rule.algorithm !== 'fixed_window') return;
  if (!earlierCounters) {
    keys.push(key);
  } else {
    // An epoch-aligned window starts at a multiple of its length (as `windowAt` of algorithms/fixed-window.ts says).
    const start = rule.calendar ? (calendar ?? new CalendarWindows(rule.calendar)).from(estimate).start : estimate - (estimate % rule.windowMs);
    keys.push(`${key}:${start}`);
  }
  // One quota across regions: the region's allowance, and the tenant's set of such windows (script-spec REGION_KEYS).
  if (rule.regions) keys.push(allowanceKey(key), globalWindowsKey(key));
}

/** How many keys `pushRuleKeys` gives the first `count` of `rules`. */
export function keysOfRules(rules: readonly ResolvedRule[], count = rules.length): number {
  let keys = 0;
  for (let i = 0; i < count; i += 1) keys += keysOf(rules[i] as ResolvedRule);
  return keys;
}

/** The minute (epoch s) that holds `ms`: a usage hash is `<tally key><minute>`. */
export function minuteOf(ms: number): number {
  return Math.floor(ms / 60_000) * 60;
}

/** What a call carries besides its decisions (see ARGV[3] to ARGV[5] in the header of lua/limit.lua). */
export interface CallOptions {
  /** Redis time (epoch ms) after which the call changes nothing and replies `expired`. */
  expiresAt?: number;
  /**
   * The minute (epoch s, `minuteOf`) whose usage hash the call's counted decisions go to, on the engine's estimate of
   * Redis's clock: the script counts into exactly that key. Needed when a decision has a tally.
   */
  minute?: number;
  /** Usage to take back: `key` starts the hash's key (the tally's), `text` is made by `takeBackText`. */
  takeBack?: { key: string; text: string };
}

/**
 * The KEYS and ARGV of one call for `batch` (see the header of lua/limit.lua). The same rules as the decision before:
 * the script reads them from there ('='); on the same keys as well (a tenant-wide decision of the same tenant, the
 * usual case in a batch), it reads those too ('=='); and the same operation and amount too: it makes the decision
 * before again ('+' and how many times).
 */
export function encodeBatch(injected: number | undefined, batch: readonly ScriptDecision[], call: CallOptions = {}): { keys: string[]; args: (string | number)[] } {
  const keys: string[] = [];
  // A call is one tenant's (the engine batches per tenant), so its decisions count into one hash.
  const tallyKey = batch.find((pending) => pending.tally)?.tally?.key;
  if (tallyKey !== undefined) {
    if (call.minute === undefined) throw new Error('a script call that counts usage needs the minute it counts in');
    keys.push(`${tallyKey}${call.minute}`);
  }
  if (call.takeBack) {
    if (tallyKey !== undefined && call.takeBack.key !== tallyKey) throw new Error('the decisions of one script call must count into one hash');
    // The hash usage is taken back from: a call of no decisions then still goes to the tenant's slot.
    const end = call.takeBack.text.indexOf(TALLY.line);
    keys.push(call.takeBack.key + (end === -1 ? call.takeBack.text : call.takeBack.text.slice(0, end)));
  }
  const own: Record<CallArg, string | number> = {
    now: injected ?? '',
    ttlExtension: injected === undefined ? 0 : INJECTED_CLOCK_TTL_EXTENSION_MS,
    counts: tallyKey === undefined ? '' : '1',
    expiresAt: call.expiresAt ?? '',
    takeBack: call.takeBack?.text ?? '',
  };
  const args: (string | number)[] = CALL_ARGV.map((name) => own[name]);
  let previous: ScriptDecision | undefined;
  let repeats = 0;
  for (const pending of batch) {
    // The ARGV say all the script reads of a decision's rules (their names are in the keys).
    const sameRules = previous !== undefined && sameArgs(previous.ruleArgs, pending.ruleArgs);
    const sameKeys = sameRules && sameArgs(previous!.keys, pending.keys);
    const sameTally = previous !== undefined && previous.tally?.text === pending.tally?.text;
    const operation = pending.shadowFrom === undefined ? pending.operation : `${pending.operation}${MARKS.shadow}${pending.shadowFrom + 1}`;
    if (sameKeys && sameTally && previous!.operation === pending.operation && previous!.shadowFrom === pending.shadowFrom && previous!.amount === pending.amount) {
      repeats += 1;
      continue;
    }
    if (repeats > 0) args.push(MARKS.repeat, repeats);
    repeats = 0;
    if (pending.tally && pending.tally.key !== tallyKey) throw new Error('the decisions of one script call must count into one hash');
    args.push(operation, pending.amount, sameTally && pending.tally ? MARKS.same : (pending.tally?.text ?? ''));
    if (sameKeys) {
      args.push(MARKS.sameKeys);
    } else {
      for (const key of pending.keys) keys.push(key);
      if (sameRules) args.push(MARKS.same);
      else for (const arg of pending.ruleArgs) args.push(arg);
    }
    previous = pending;
  }
  if (repeats > 0) args.push(MARKS.repeat, repeats);
  return { keys, args };
}

/**
 * The ARGV of the first `count` rules of `prepared` (all by default): the prepared array, or with each calendar window's
 * bounds computed from `callerNow` (see lua/limit.lua).
 */
export function argsAt(prepared: PreparedRules, callerNow: number, count = prepared.rules.length): readonly (string | number)[] {
  if (!prepared.calendar && count === prepared.rules.length) return prepared.args;
  const args: (string | number)[] = [String(count)];
  for (let i = 0; i < count; i += 1) {
    for (const arg of prepared.ruleArgs[i] as readonly string[]) args.push(arg);
    const calendar = prepared.calendars[i];
    if (calendar) {
      const windows = calendar.from(callerNow - CALENDAR_SKEW_MS);
      args.push(windows.start, windows.end, windows.nextEnd);
    }
  }
  return args;
}

function sameArgs(a: readonly (string | number)[], b: readonly (string | number)[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

/** Redis's now (ms) when the reply says the call ran after its expiry and did nothing, else undefined. */
export function expiredAt(reply: unknown): number | undefined {
  if (typeof reply !== 'string' || !reply.startsWith(EXPIRED)) return undefined;
  return replyNumbers(reply.slice(EXPIRED.length))[0];
}

const EXPIRED = REPLY.expired;

/**
 * Redis's own now (ms) in a reply of `decisions` decisions over these rules: nowMs, or with an injected clock the
 * integer that ends the reply (see the header of lua/limit.lua).
 */
export function redisNowOf(reply: readonly number[], injected: boolean): number {
  return (injected ? reply[reply.length - 1] : reply[0]) as number;
}

/**
 * The usage fields (and amounts) lua/includes/tally.lua's countDecision added for one decision made with `tally` (a tally
 * string), `charged` units: what the engine takes back for a decision whose reply came too late. `refusedBy` (from
 * 1): the first rule that refused a denied decision, or whose would-deny a shadow decision reported; 0 = none.
 */
export function countedUsage(text: string, operation: Operation, decision: { allowed: boolean; charged: number; refusedBy: number }): [string, number][] {
  const [head = '', ...names] = text.split(TALLY.line);
  if (operation === 'peek' || operation === 'refund') return [];
  // A routed tally (routedTally): `<base>\t<cap>\t<route>`; its route field is taken back under the name the script
  // gave it (the route, or `other` past the cap: the script looks that up again).
  const [base = '', , route] = head.split(TALLY.route);
  const refuser = names[decision.refusedBy - 1] ?? '';
  const { decisions, units, perRoute } = TALLY.fields;
  const { allowed, denied, shadowDenied } = TALLY.results;
  const routed = (outcome: string): [string, number][] => (route ? [[`${perRoute}${route}${TALLY.part}${outcome}`, 1]] : []);
  if (!decision.allowed) return [[`${decisions}${base}${denied}${refuser}`, 1], ...routed(`${denied}${refuser}`)];
  const outcome = decision.refusedBy > 0 && operation === 'consume' ? `${shadowDenied}${refuser}` : allowed;
  const rest = `${base}${outcome}`;
  return [[`${decisions}${rest}`, 1], [`${units}${rest}`, decision.charged], ...routed(outcome)];
}

/** ARGV[5] of lua/limit.lua: take back `fields` from the hash of `minute` (epoch s); amounts add up per field. */
export function takeBackText(minute: number, fields: Iterable<[string, number]>): string {
  const sums = new Map<string, number>();
  for (const [field, amount] of fields) if (amount > 0) sums.set(field, (sums.get(field) ?? 0) + amount);
  let text = String(minute);
  for (const [field, amount] of sums) {
    if (field.includes(TALLY.line)) throw new Error('a usage field must not hold a line break');
    text += `${TALLY.line}${field}${TALLY.line}${amount}`;
  }
  return text;
}

/**
 * The integers of the script's reply: one string of integers separated by single spaces (see lua/limit.lua), read
 * without a string per number; anything else is not a reply of this script.
 */
export function replyNumbers(reply: unknown): number[] {
  if (typeof reply !== 'string' || reply.length === 0) unexpected(reply);
  const numbers: number[] = [];
  let value = 0;
  let sign = 1;
  let digits = 0;
  for (let i = 0; i <= reply.length; i += 1) {
    const c = i < reply.length ? reply.charCodeAt(i) : SPACE;
    if (c >= DIGIT_0 && c <= DIGIT_9) {
      value = value * 10 + (c - DIGIT_0);
      digits += 1;
    } else if (c === SPACE && digits > 0) {
      numbers.push(sign * value);
      value = 0;
      sign = 1;
      digits = 0;
    } else if (c === MINUS && digits === 0 && sign === 1) {
      sign = -1;
    } else {
      unexpected(reply);
    }
  }
  return numbers;
}

const SPACE = 0x20;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/** How many numbers of the reply one decision of `rules` takes: granted, then three per rule. */
export function decisionLength(rules: readonly ResolvedRule[]): number {
  return REPLY.perDecision.length + REPLY.perRule.length * rules.length;
}

/**
 * The decision at `offset` of the script's reply numbers (after `nowMs` at 0; see lua/limit.lua). A consume or a peek
 * granted 2 was admitted while its shadow policy's rules (from `shadowFrom`) would have denied: they report their
 * retry-after.
 */
export function parseDecision(reply: readonly number[], offset: number, rules: readonly ResolvedRule[], operation: Operation, shadowFrom = rules.length): Lease {
  if (reply.length < offset + decisionLength(rules)) unexpected(reply);
  const granted = reply[offset] as number;
  const allowed = granted > 0;
  const waitsFrom = operation !== 'lease' && granted === 2 ? shadowFrom : rules.length;
  const numbers: RuleNumbers[] = [];
  for (let i = 0, o = offset + REPLY.perDecision.length; i < rules.length; i += 1, o += REPLY.perRule.length) {
    const wait = reply[o + 2] as number;
    const delays = allowed && i < waitsFrom;
    numbers.push({ remaining: reply[o] as number, resetMs: reply[o + 1] as number, retryAfterMs: delays ? 0 : wait, delayMs: delays ? wait : 0 });
  }
  return { granted: operation === 'lease' ? granted : 0, decision: toDecision(reply[0] as number, allowed, rules, numbers) };
}

function unexpected(reply: unknown): never {
  throw new Error(`limit.lua: unexpected reply ${JSON.stringify(reply)}`);
}
