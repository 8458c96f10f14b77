import type { Tally } from '../contract';
import { countedUsage, decisionLength, parseDecision, type ScriptDecision, takeBackText } from './protocol';

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
 * i's client was shown 'allowed'; undefined when there is nothing to undo.
 */
export function compensationOf(reply: readonly number[], batch: readonly ScriptDecision[], shownAllowed: readonly boolean[]): Compensation | undefined {
  const refunds: ScriptDecision[] = [];
  const counted: [string, number][] = [];
  let tally: Tally | undefined;
  let offset = 1;
  batch.forEach((sent, i) => {
    const at = offset;
    offset += decisionLength(sent.rules);
    if (sent.operation !== 'consume' && sent.operation !== 'lease') return;
    const { granted, decision } = parseDecision(reply, at, sent.rules, sent.operation);
    const charged = decision.allowed ? (sent.operation === 'lease' ? granted : sent.amount) : 0;
    if (charged > 0 && !shownAllowed[i]) {
      refunds.push({ operation: 'refund', amount: charged, keys: sent.keys, ruleArgs: sent.ruleArgs, rules: sent.rules });
    }
    if (sent.tally) {
      tally = sent.tally;
      const refusedBy = decision.allowed ? 0 : decision.rules.findIndex((r) => r.retryAfterMs > 0) + 1;
      counted.push(...countedUsage(sent.tally.text, sent.operation, decision.allowed ? Math.max(1, granted) : 0, charged, refusedBy));
    }
  });
  if (refunds.length === 0 && counted.length === 0) return undefined;
  const minute = Math.floor((reply[0] as number) / 60_000) * 60;
  return { refunds, ...(tally && counted.length > 0 ? { takeBack: { key: tally.key, text: takeBackText(minute, counted) } } : {}) };
}
