import type { Tally } from '../contract';
import { argsAt, countedUsage, decisionLength, keysOfRules, parseDecision, type ScriptDecision, takeBackText } from './protocol';

/**
 * What undoes a script call whose reply came after its decisions were answered without it (the deadline): one call of
 * lua/limit.lua on the same tenant's keys that gives back the charge of every decision the client was not shown as
 * allowed (`refund`s, counted nowhere) and takes back every count the call added to usage (ARGV[5]), so that usage
 * holds the answer the client got (counted by whoever gave it) and nothing else. A peek changed nothing; a refund
 * stands (it gave units back, and is not a decision). docs/adr/0021-one-request-one-decision.md.
 */
export interface Compensation {
  refunds: ScriptDecision[];
  takeBack?: { key: string; text: string };
}

/**
 * The compensation of `batch`'s late reply (its integers; `nowMs` first), `shownAllowed[i]` saying whether decision
 * i's client was shown 'allowed' (`callerNow`: the engine's clock, for calendar windows; `minute`: the minute whose
 * usage hash the call counted into); undefined when there is nothing to undo.
 */
export function compensationOf(reply: readonly number[], batch: readonly ScriptDecision[], shownAllowed: readonly boolean[], callerNow: number, minute: number): Compensation | undefined {
  const refunds: ScriptDecision[] = [];
  const counted: [string, number][] = [];
  let tally: Tally | undefined;
  let offset = 1;
  batch.forEach((sent, i) => {
    const at = offset;
    offset += decisionLength(sent.rules);
    if (sent.operation !== 'consume' && sent.operation !== 'lease') return;
    const { granted, decision } = parseDecision(reply, at, sent.rules, sent.operation, sent.shadowFrom);
    const charged = decision.allowed ? (sent.operation === 'lease' ? granted : sent.amount) : 0;
    // The first rule that refused: a denial's, or (admitted) a shadow policy's that would have denied.
    const refusedBy = decision.rules.findIndex((r) => r.retryAfterMs > 0) + 1;
    if (charged > 0 && !shownAllowed[i]) refunds.push(refundOf(sent, charged, decision.allowed && refusedBy > 0 ? sent.shadowFrom : undefined, callerNow));
    if (sent.tally) {
      tally = sent.tally;
      counted.push(...countedUsage(sent.tally.text, sent.operation, { allowed: decision.allowed, charged, refusedBy }));
    }
  });
  if (refunds.length === 0 && counted.length === 0) return undefined;
  return { refunds, ...(tally && counted.length > 0 ? { takeBack: { key: tally.key, text: takeBackText(minute, counted) } } : {}) };
}

/**
 * Gives back `units` to the rules `sent` charged: all of them, or those before `chargedUpTo` (a shadow policy's
 * would-deny), with their calendar windows' bounds as of `callerNow` (the refund is made now).
 */
function refundOf(sent: ScriptDecision, units: number, chargedUpTo: number | undefined, callerNow: number): ScriptDecision {
  const { prepared } = sent;
  if (chargedUpTo === undefined) return { operation: 'refund', amount: units, keys: sent.keys, ruleArgs: sent.ruleArgs, rules: sent.rules, prepared };
  const rules = prepared.rules.slice(0, chargedUpTo);
  return { operation: 'refund', amount: units, keys: sent.keys.slice(0, keysOfRules(sent.rules, chargedUpTo)), ruleArgs: argsAt(prepared, callerNow, chargedUpTo), rules, prepared };
}
