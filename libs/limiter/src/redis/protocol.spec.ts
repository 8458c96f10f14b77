import { describe, expect, it } from 'vitest';
import type { LimitRule } from '../contract';
import { prepareRules, type PreparedRules, ruleArgs } from '../prepared-rules';
import { argsAt, countedUsage, decisionLength, encodeBatch, expiredAt, keysOfRules, minuteOf, parseDecision, pushRuleKeys, replyNumbers, routedTally, type ScriptDecision, takeBackText, tallyText } from './protocol';

// Golden examples of lua/limit.lua's protocol (its header documents the same): fixed rules → the exact ARGV, a
// fixed batch → the exact KEYS and ARGV, a fixed reply → the exact decisions. A change to either side of the
// protocol changes one of these on purpose.

const every: LimitRule[] = [
  { name: 'minute', algorithm: 'fixed_window', limit: 10, windowMs: 60_000 },
  { name: 'log', algorithm: 'sliding_log', limit: 5, windowMs: 1_000 },
  { name: 'hour', algorithm: 'sliding_window', limit: 100, windowMs: 3_600_000 },
  { name: 'bucket', algorithm: 'token_bucket', limit: 6, windowMs: 1_000, burst: 10 },
  { name: 'meter', algorithm: 'leaky_bucket', limit: 3, windowMs: 2_000 },
  { name: 'shaper', algorithm: 'leaky_bucket_shaper', limit: 50, windowMs: 60_000, burst: 5 },
  { name: 'gcra', algorithm: 'gcra', limit: 10, windowMs: 60_000, burst: 3 },
];
const resolved = (rules: LimitRule[]) => prepareRules(rules).rules;

describe('limit.lua protocol: arguments', () => {
  it('sends each algorithm\'s rule as its code, numbers and packing pattern', () => {
    expect(resolved(every).map(ruleArgs)).toEqual([
      ['fw', '10', '60000'],
      ['sl', '5', '1000'],
      ['sw', '100', '3600000', '%d%03d%03d2'],
      ['tb', '3', '500', '10', '%d%04d3'],
      ['lb', '3', '2000', '3', '%d%04d3'],
      ['ls', '1', '1200', '5', '%d%04d3'],
      ['gc', '1', '6000', '3', '%d%01d0'],
    ]);
    expect(prepareRules(every).args[0]).toBe('7');
    expect(prepareRules(every).ruleArgs).toEqual(resolved(every).map(ruleArgs));
  });

  it('adds a calendar day\'s bounds in its time zone, computed from the caller\'s clock less a minute of skew', () => {
    const day = prepareRules([{ name: 'daily', algorithm: 'fixed_window', limit: 1000, windowMs: 0, calendar: { unit: 'day', timeZone: 'Europe/Berlin' } }]);
    // 2026-03-29 is 23 hours long in Berlin (summer time starts); noon UTC is inside it.
    const noon = Date.UTC(2026, 2, 29, 12);
    expect(argsAt(day, noon)).toEqual(['1', 'fw', '1000', '0', Date.UTC(2026, 2, 28, 23), Date.UTC(2026, 2, 29, 22), Date.UTC(2026, 2, 30, 22)]);
    expect(day.calendar).toBe(true);
  });

  it('declares a fixed window\'s key and the counter earlier versions kept for the window of the engine\'s clock', () => {
    const [minute, bucket] = resolved([every[0]!, every[3]!]);
    const [day] = resolved([{ name: 'daily', algorithm: 'fixed_window', limit: 1000, windowMs: 0, calendar: { unit: 'day', timeZone: 'Europe/Berlin' } }]);
    const keys: string[] = [];
    const at = Date.UTC(2026, 2, 29, 12, 0, 30);
    pushRuleKeys(keys, 'tg:{a}:fw:minute:-', minute!, at);
    pushRuleKeys(keys, 'tg:{a}:tb3:bucket:-', bucket!, at);
    pushRuleKeys(keys, 'tg:{a}:fw:daily:-', day!, at);
    expect(keys).toEqual([
      'tg:{a}:fw:minute:-', `tg:{a}:fw:minute:-:${Date.UTC(2026, 2, 29, 12)}`,
      'tg:{a}:tb3:bucket:-',
      'tg:{a}:fw:daily:-', `tg:{a}:fw:daily:-:${Date.UTC(2026, 2, 28, 23)}`,
    ]);
    // Earlier counters off (every node runs this version): the rule's own key twice, which the script reads as no counter.
    const alone: string[] = [];
    pushRuleKeys(alone, 'tg:{a}:fw:minute:-', minute!, at, undefined, false);
    pushRuleKeys(alone, 'tg:{a}:tb3:bucket:-', bucket!, at, undefined, false);
    expect(alone).toEqual(['tg:{a}:fw:minute:-', 'tg:{a}:fw:minute:-', 'tg:{a}:tb3:bucket:-']);
    expect(keysOfRules([minute!, bucket!, day!])).toBe(5);
    expect(keysOfRules([minute!, bucket!, day!], 2)).toBe(3);
    expect(minuteOf(at)).toBe(Date.UTC(2026, 2, 29, 12) / 1000);
  });

  it('sends a batch with its repeats (+ n), the same rules (=) and the same keys (==) said once', () => {
    const rules = prepareRules([every[0]!]);
    const other = prepareRules([every[3]!]);
    const decision = (operation: ScriptDecision['operation'], amount: number, keys: string[], r: PreparedRules = rules): ScriptDecision => ({ operation, amount, keys, rules: r.rules, ruleArgs: r.args, prepared: r });
    const tenantWide = ['tg:{a}:fw:minute:-'];
    const batch = [
      decision('consume', 1, tenantWide),
      decision('consume', 1, tenantWide),
      decision('consume', 1, tenantWide),
      decision('consume', 2, tenantWide),
      decision('peek', 1, ['tg:{a}:fw:minute:s1']),
      decision('consume', 1, ['tg:{a}:tb:bucket:-'], other),
    ];
    expect(encodeBatch(undefined, batch)).toEqual({
      keys: ['tg:{a}:fw:minute:-', 'tg:{a}:fw:minute:s1', 'tg:{a}:tb:bucket:-'],
      args: ['', 0, '', '', '', 'consume', 1, '', '1', 'fw', '10', '60000', '+', 2, 'consume', 2, '', '==', 'peek', 1, '', '=', 'consume', 1, '', '1', 'tb', '3', '500', '10', '%d%04d3'],
    });
    // Counted decisions: the call's hash key once, each decision's tally, '=' for the one before's; a repeat needs
    // the same tally.
    const counted = tallyText('p1|', ['minute']);
    expect(counted).toBe('p1|\nminute');
    const tally = { key: 'tg:{a}:u:', text: counted };
    const another = { key: 'tg:{a}:u:', text: tallyText('p2|', ['minute']) };
    // The hash of the minute the engine names (its estimate of Redis's clock) is declared first; ARGV[3] says so.
    const countedBatch = encodeBatch(undefined, [
      { ...decision('consume', 1, tenantWide), tally },
      { ...decision('consume', 1, tenantWide), tally },
      { ...decision('consume', 1, tenantWide), tally: another },
      decision('consume', 1, tenantWide),
    ], { minute: 29_000_000 });
    expect(countedBatch.keys).toEqual(['tg:{a}:u:29000000', 'tg:{a}:fw:minute:-']);
    expect(countedBatch.args).toEqual(['', 0, '1', '', '', 'consume', 1, counted, '1', 'fw', '10', '60000', '+', 1, 'consume', 1, another.text, '==', 'consume', 1, '', '==']);
    expect(() => encodeBatch(undefined, [{ ...decision('consume', 1, tenantWide), tally }])).toThrow(/minute/);
    // A shadow policy from the second rule on: its index (from 1) after the operation; a repeat needs the same.
    const two = prepareRules([every[0]!, every[3]!]);
    const shadow = (operation: ScriptDecision['operation']) => ({ ...decision(operation, 1, ['tg:{a}:fw:minute:-', 'tg:{a}:tb:bucket:-'], two), shadowFrom: 1 });
    expect(encodeBatch(undefined, [shadow('consume'), shadow('consume'), shadow('peek'), decision('consume', 1, ['tg:{a}:fw:minute:-', 'tg:{a}:tb:bucket:-'], two)]).args.slice(5)).toEqual(
      ['consume/2', 1, '', '2', 'fw', '10', '60000', 'tb', '3', '500', '10', '%d%04d3', '+', 1, 'peek/2', 1, '', '==', 'consume', 1, '', '=='],
    );
    expect(() => tallyText('p1|', ['a\nb'])).toThrow(/line break/);
    // An injected clock (tests) is sent with the TTL extension.
    expect(encodeBatch(1_700_000_000_000, [decision('consume', 1, tenantWide)]).args.slice(0, 2)).toEqual([1_700_000_000_000, 60_000]);
  });

  it('sends a call\'s expiry on Redis\'s clock, and the usage a compensation takes back (summed per field)', () => {
    const prepared = prepareRules([every[0]!]);
    const refund: ScriptDecision = { operation: 'refund', amount: 2, keys: ['tg:{a}:fw:minute:-'], rules: prepared.rules, ruleArgs: prepared.args, prepared };
    const takeBack = { key: 'tg:{a}:u:', text: takeBackText(29_000_000, [['n|-|allowed|', 1], ['c|-|allowed|', 2], ['n|-|allowed|', 1], ['n|-|denied|minute', 1]]) };
    expect(takeBack.text).toBe('29000000\nn|-|allowed|\n2\nc|-|allowed|\n2\nn|-|denied|minute\n1');
    expect(encodeBatch(undefined, [refund], { expiresAt: 1_700_000_000_050, takeBack })).toEqual({
      keys: ['tg:{a}:u:29000000', 'tg:{a}:fw:minute:-'],
      args: ['', 0, '', 1_700_000_000_050, takeBack.text, 'refund', 2, '', '1', 'fw', '10', '60000'],
    });
    // Nothing to refund: a call of no decisions that only takes usage back, from the hash it declares.
    expect(encodeBatch(undefined, [], { takeBack })).toEqual({ keys: ['tg:{a}:u:29000000'], args: ['', 0, '', '', takeBack.text] });
    // Counting and taking back in one call: the hash counted into first, then the one taken back from.
    const tally = { key: 'tg:{a}:u:', text: tallyText('-|', ['minute']) };
    expect(encodeBatch(undefined, [{ ...refund, operation: 'consume', amount: 1, tally }], { minute: 29_000_060, takeBack }).keys).toEqual(['tg:{a}:u:29000060', 'tg:{a}:u:29000000', 'tg:{a}:fw:minute:-']);
  });

  it('names the usage fields the script counted for a decision, as its countDecision does', () => {
    const text = tallyText('p1|', ['minute', 'p-minute']);
    expect(countedUsage(text, 'consume', { allowed: true, charged: 3, refusedBy: 0 })).toEqual([['n|p1|allowed|', 1], ['c|p1|allowed|', 3]]);
    expect(countedUsage(text, 'lease', { allowed: true, charged: 4, refusedBy: 0 })).toEqual([['n|p1|allowed|', 1], ['c|p1|allowed|', 4]]);
    expect(countedUsage(text, 'consume', { allowed: false, charged: 0, refusedBy: 2 })).toEqual([['n|p1|denied|p-minute', 1]]);
    expect(countedUsage(text, 'peek', { allowed: true, charged: 3, refusedBy: 0 })).toEqual([]);
    expect(countedUsage(text, 'refund', { allowed: true, charged: 3, refusedBy: 0 })).toEqual([]);
    // Admitted while a shadow policy's rule would have denied: a would-deny, charged to the rules before the policy's.
    expect(countedUsage(text, 'consume', { allowed: true, charged: 1, refusedBy: 2 })).toEqual([['n|p1|shadow_denied|p-minute', 1], ['c|p1|shadow_denied|p-minute', 1]]);
  });

  it('puts a route and its cap in the tally\'s first line, and names the route\'s field the script counted', () => {
    const tally = { key: 'tg:{a}:u:', text: tallyText('p1|', ['minute', 'p-minute']) };
    const routed = routedTally(tally, 'GET /v1/items', 100);
    expect(routed).toEqual({ key: 'tg:{a}:u:', text: 'p1|\t100\tGET /v1/items\nminute\np-minute' });
    expect(countedUsage(routed.text, 'consume', { allowed: true, charged: 3, refusedBy: 0 })).toEqual([['n|p1|allowed|', 1], ['c|p1|allowed|', 3], ['r|GET /v1/items|allowed|', 1]]);
    expect(countedUsage(routed.text, 'consume', { allowed: false, charged: 0, refusedBy: 1 })).toEqual([['n|p1|denied|minute', 1], ['r|GET /v1/items|denied|minute', 1]]);
    expect(countedUsage(routed.text, 'consume', { allowed: true, charged: 1, refusedBy: 2 })).toEqual([
      ['n|p1|shadow_denied|p-minute', 1], ['c|p1|shadow_denied|p-minute', 1], ['r|GET /v1/items|shadow_denied|p-minute', 1],
    ]);
    expect(() => routedTally(tally, 'GET /a\tb', 1)).toThrow(/tab/);
  });
});

describe('limit.lua protocol: reply', () => {
  const two = resolved([every[0]!, every[3]!]);

  it('reads admitted, denied and leased decisions from one string of integers', () => {
    const reply = replyNumbers('1700000000000 1 9 45000 0 9 0 0 0 0 45000 45000 9 0 0 3 7 45000 0 7 0 0');
    let offset = 1;
    const admitted = parseDecision(reply, offset, two, 'consume');
    offset += decisionLength(two);
    const denied = parseDecision(reply, offset, two, 'consume');
    offset += decisionLength(two);
    const leased = parseDecision(reply, offset, two, 'lease');
    expect(admitted).toEqual({
      granted: 0,
      decision: {
        allowed: true,
        retryAfterMs: 0,
        delayMs: 0,
        nowMs: 1_700_000_000_000,
        rules: [
          { name: 'minute', algorithm: 'fixed_window', limit: 10, remaining: 9, resetMs: 45_000, retryAfterMs: 0 },
          { name: 'bucket', algorithm: 'token_bucket', limit: 10, remaining: 9, resetMs: 0, retryAfterMs: 0 },
        ],
      },
    });
    expect(denied.decision).toMatchObject({ allowed: false, retryAfterMs: 45_000, rules: [{ remaining: 0, retryAfterMs: 45_000 }, { remaining: 9, retryAfterMs: 0 }] });
    expect(leased).toMatchObject({ granted: 3, decision: { allowed: true, rules: [{ remaining: 7 }, { remaining: 7 }] } });
    // Granted 2: admitted on the rules before a shadow policy (from the second rule), whose rule gives its retry-after.
    const wouldDeny = parseDecision(replyNumbers('1700000000000 2 9 45000 0 0 0 250'), 1, two, 'consume', 1);
    expect(wouldDeny.decision).toMatchObject({ allowed: true, retryAfterMs: 0, delayMs: 0, rules: [{ remaining: 9, retryAfterMs: 0 }, { remaining: 0, retryAfterMs: 250 }] });
    expect(replyNumbers('5 -1 0')).toEqual([5, -1, 0]);
  });

  it('tells a call that ran after its expiry (and did nothing) by its reply', () => {
    expect(expiredAt('expired 1700000000123')).toBe(1_700_000_000_123);
    expect(expiredAt('1700000000000 1 9 45000 0')).toBeUndefined();
  });

  it('refuses anything that is not a reply of the script', () => {
    for (const reply of ['', '1 x', '1  2', '1 2 ', '--1', '1-2', 12, null, ['1']]) expect(() => replyNumbers(reply)).toThrow(/unexpected reply/);
    expect(() => parseDecision([1, 1, 9], 1, two, 'consume')).toThrow(/unexpected reply/);
  });
});
