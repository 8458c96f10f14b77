import { prepareRules, preparingEachCall, type RuleListLimiter } from '../prepared-rules';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { startTcpProxy, type TcpProxy } from '../../../../test/support/tcp-proxy';
import { ManualClock } from '../clock';
import type { LimitRule, Tally } from '../contract';
import { DeadlineExceeded } from '../errors';
import { tenantKeyPrefix } from './keys';
import { encodeBatch, minuteOf, pushRuleKeys, routedTally, tallyText } from './protocol';
import { type LateReplyOutcome, limitScript, RedisEngine, type RedisEngineOptions } from './redis-engine';
import { deleteTenantKeys, tenantIds, usageSums } from './redis-test-support';

// RedisEngineOptions.deadlineMs: one timer and one observation per script call, and one request, one decision: a call
// carries an expiry on Redis's clock (run later, it changes nothing) and a reply that comes after the deadline anyway
// is undone (docs/adr/0021-one-request-one-decision.md). Against the real Redis behind a proxy that holds requests or
// replies back.
// Day-long windows: a test that crosses a minute's edge reads the same window.
const DAY = 86_400_000;

describe('RedisEngine deadline per script call', () => {
  let proxy: TcpProxy;
  let slow: Redis;
  let redis: Redis;
  const tenants: string[] = [];
  const rules: LimitRule[] = [{ name: 'day', algorithm: 'fixed_window', limit: 100, windowMs: DAY }];

  beforeAll(async () => {
    const target = new URL(TEST_REDIS_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const viaProxy = new URL(TEST_REDIS_URL);
    viaProxy.port = String(proxy.port);
    slow = new Redis(viaProxy.toString());
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    await deleteTenantKeys(redis, tenants);
    slow.disconnect();
    redis.disconnect();
    await proxy.close();
  });

  const tenant = tenantIds(tenants, 'd');
  const usageKey = (t: string) => `${tenantKeyPrefix(t)}u:`;
  /** Every usage count of the tenant, over whatever minutes the test spanned. */
  const usage = (t: string) => usageSums([redis], t);
  /** An engine through the proxy with a deadline, recording what became of its late replies. */
  const lateEngine = (options: RedisEngineOptions = {}) => {
    const outcomes: LateReplyOutcome[] = [];
    const engine = preparingEachCall(new RedisEngine(slow, { deadlineMs: 250, onLateReply: (o) => outcomes.push(o), ...options }));
    return { engine, outcomes };
  };
  /** The deadline errors of settled decisions that all failed with one. */
  const deadlines = (settled: PromiseSettledResult<unknown>[]) =>
    settled.map((r) => {
      expect(r.status).toBe('rejected');
      const reason = (r as PromiseRejectedResult).reason as unknown;
      expect(reason).toBeInstanceOf(DeadlineExceeded);
      return reason as DeadlineExceeded;
    });
  /** Units left in the rule (an admitted peek's remaining counts its own cost as taken). */
  const left = async (t: string, r: LimitRule[] = rules) => {
    const peek = await preparingEachCall(new RedisEngine(redis)).peek({ tenantId: t, rules: r, cost: 1 });
    return (peek.rules[0]?.remaining ?? 0) + (peek.allowed ? 1 : 0);
  };
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 100 && !check(); i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(check()).toBe(true);
  };
  /** A new tenant counted with no policy, whose first call (a peek) taught `engine` Redis's clock. */
  const knownTenant = async (engine: RuleListLimiter) => {
    const tenantId = tenant();
    const tally: Tally = { key: usageKey(tenantId), text: tallyText('-|', ['day']) };
    await engine.peek({ tenantId, rules, cost: 1 });
    return { tenantId, tally };
  };
  /** What became of the test's one late call, once its reply came (the proxy then passes everything at once again). */
  const afterLateReply = async (outcomes: LateReplyOutcome[]) => {
    await until(() => outcomes.length === 1);
    proxy.delay(0);
    return outcomes;
  };

  beforeAll(async () => {
    // The connection made and the script loaded (EVALSHA, NOSCRIPT, EVAL) before any deadline counts: on a busy
    // machine those three round trips alone can take longer than a deadline.
    await preparingEachCall(new RedisEngine(slow)).peek({ tenantId: tenant(), rules, cost: 1 });
  });

  it('fails every decision of a late call with DeadlineExceeded, and a call Redis runs after its expiry changes nothing', async () => {
    const calls: number[] = [];
    const { engine, outcomes } = lateEngine({ onScriptCall: (ms) => calls.push(ms) });
    const tenantId = tenant();

    // Quick Redis: answered, one observation; the reply shows where Redis's clock stands.
    expect((await engine.consume({ tenantId, rules, cost: 1 })).allowed).toBe(true);
    expect(calls).toHaveLength(1);

    // Requests and replies held back 1,200 ms (the deadline is 250 ms: far enough apart for a loaded machine): three decisions of one batch fail at the deadline, not when Redis answers.
    proxy.delay(1200);
    const started = Date.now();
    const late = await Promise.allSettled([1, 2, 3].map(() => engine.consume({ tenantId, rules, cost: 1 })));
    const waited = Date.now() - started;
    expect(deadlines(late)).toHaveLength(3);
    expect(waited).toBeLessThan(1000);
    expect(calls).toHaveLength(2); // one call for the batch of three
    // libuv counts timers from the event loop's time, cached when the turn began: up to 1 ms before the call.
    expect(calls[1]).toBeGreaterThanOrEqual(249);

    // The call reached Redis 1,200 ms after it was sent, past its expiry: it charged nothing, and said so.
    expect(await afterLateReply(outcomes)).toEqual(['expired']);
    const after = await engine.consume({ tenantId, rules, cost: 1 });
    expect(after.rules[0]?.remaining).toBe(100 - 2);
    expect(calls).toHaveLength(3);
  });

  it('undoes a call Redis ran in time but whose reply came late: charges given back, counts taken back', async () => {
    const { engine, outcomes } = lateEngine();
    const tenantId = tenant();
    const five: LimitRule[] = [{ name: 'day', algorithm: 'fixed_window', limit: 5, windowMs: DAY }];
    const tally: Tally = { key: usageKey(tenantId), text: tallyText('p1|', ['day']) };
    for (let i = 0; i < 3; i += 1) expect((await engine.consume({ tenantId, rules: five, cost: 1, tally })).allowed).toBe(true);
    const before = await usage(tenantId);
    expect(before).toEqual({ 'n|p1|allowed|': 3, 'c|p1|allowed|': 3 });

    // Replies held back: Redis decides the batch at once (2 admitted, 1 denied, a peek), the node answers without it.
    proxy.delay(900, 'replies');
    const late = await Promise.allSettled([
      engine.consume({ tenantId, rules: five, cost: 1, tally }),
      engine.consume({ tenantId, rules: five, cost: 1, tally }),
      engine.consume({ tenantId, rules: five, cost: 1, tally }),
      engine.peek({ tenantId, rules: five, cost: 1, tally }),
    ]);
    expect(deadlines(late)).toHaveLength(4);
    expect(await usage(tenantId)).toEqual({ 'n|p1|allowed|': 5, 'c|p1|allowed|': 5, 'n|p1|denied|day': 1 }); // Redis did decide them

    expect(await afterLateReply(outcomes)).toEqual(['compensated']);
    expect(await usage(tenantId)).toEqual(before);
    expect(await left(tenantId, five)).toBe(2);
  });

  it('takes a late call\'s counts per route back under the names it counted them: its route, or other past the cap', async () => {
    const { engine, outcomes } = lateEngine();
    const tenantId = tenant();
    const five: LimitRule[] = [{ name: 'day', algorithm: 'fixed_window', limit: 5, windowMs: DAY }];
    const tally: Tally = { key: usageKey(tenantId), text: tallyText('p1|', ['day']) };
    const on = (route: string) => engine.consume({ tenantId, rules: five, cost: 1, tally: routedTally(tally, route, 1) });
    for (let i = 0; i < 2; i += 1) expect((await on('GET /a')).allowed).toBe(true);
    const before = await usage(tenantId);
    expect(before).toEqual({ 'n|p1|allowed|': 2, 'c|p1|allowed|': 2, 'r|GET /a|allowed|': 2, 'rr|GET /a': 1, 'r#': 1 });

    proxy.delay(900, 'replies');
    const late = await Promise.allSettled([on('GET /a'), on('GET /b'), on('GET /a'), on('GET /b')]);
    expect(deadlines(late)).toHaveLength(4);
    // Redis did decide them: 3 admitted, 1 denied; GET /b past the cap (1) is `other`.
    expect(await usage(tenantId)).toEqual({
      'n|p1|allowed|': 5, 'c|p1|allowed|': 5, 'n|p1|denied|day': 1,
      'r|GET /a|allowed|': 4, 'r|other|allowed|': 1, 'r|other|denied|day': 1, 'rr|GET /a': 1, 'r#': 1,
    });

    expect(await afterLateReply(outcomes)).toEqual(['compensated']);
    expect(await usage(tenantId)).toEqual(before);
  });

  it('keeps the charge of a late decision the caller answered allowed (its request went ahead), not its count', async () => {
    const { engine, outcomes } = lateEngine();
    const { tenantId, tally } = await knownTenant(engine);

    proxy.delay(900, 'replies');
    const [passed, refused] = deadlines(await Promise.allSettled([engine.consume({ tenantId, rules, cost: 2, tally }), engine.consume({ tenantId, rules, cost: 3, tally })]));
    // Said in the turn the errors came in: the first was let through (a failure mode `open`), the second refused.
    passed!.answered(true);
    refused!.answered(false);

    expect(await afterLateReply(outcomes)).toEqual(['compensated']);
    expect(await usage(tenantId)).toEqual({});
    expect(await left(tenantId)).toBe(100 - 2);
  });

  it('gives back the units of a late lease and takes back its count', async () => {
    const { engine, outcomes } = lateEngine();
    const { tenantId, tally } = await knownTenant(engine);

    proxy.delay(900, 'replies');
    deadlines(await Promise.allSettled([engine.lease({ tenantId, rules, max: 40, tally })]));
    expect(await afterLateReply(outcomes)).toEqual(['compensated']);
    expect(await usage(tenantId)).toEqual({});
    expect(await left(tenantId)).toBe(100);
  });

  it('gives back a late shadow would-deny to the tenant\'s own limits only, and takes back its count', async () => {
    const { engine, outcomes } = lateEngine();
    const tenantId = tenant();
    const policy: LimitRule = { name: 'p-day', algorithm: 'fixed_window', limit: 1, windowMs: DAY };
    const both = [...rules, policy];
    const tally: Tally = { key: usageKey(tenantId), text: tallyText('p|', ['day', 'p-day']) };
    expect((await engine.consume({ tenantId, rules: both, cost: 1, shadowFrom: 1, tally })).allowed).toBe(true);
    proxy.delay(900, 'replies');
    // The policy (in shadow) would deny: Redis charges the tenant's own limit alone and counts a would-deny.
    deadlines(await Promise.allSettled([engine.consume({ tenantId, rules: both, cost: 1, shadowFrom: 1, tally })]));
    expect(await usage(tenantId)).toEqual({ 'n|p|allowed|': 1, 'c|p|allowed|': 1, 'n|p|shadow_denied|p-day': 1, 'c|p|shadow_denied|p-day': 1 });
    expect(await afterLateReply(outcomes)).toEqual(['compensated']);
    expect(await usage(tenantId)).toEqual({ 'n|p|allowed|': 1, 'c|p|allowed|': 1 });
    expect(await left(tenantId)).toBe(99);
    expect(await left(tenantId, [policy])).toBe(0); // still the first check's, not given back
  });

  it('undoes a late call made through the guard (a breaker\'s half-open trial) without passing the guard again', async () => {
    let guarded = 0;
    const { engine, outcomes } = lateEngine({
      guard: (call) => {
        guarded += 1;
        return call();
      },
    });
    const { tenantId, tally } = await knownTenant(engine);
    proxy.delay(900, 'replies');
    deadlines(await Promise.allSettled([engine.consume({ tenantId, rules, cost: 1, tally })]));
    expect(await afterLateReply(outcomes)).toEqual(['compensated']);
    expect(guarded).toBe(2); // the peek and the trial; the undoing call is owed whatever the circuit says
    expect(await usage(tenantId)).toEqual({});
    expect(await left(tenantId)).toBe(100);
  });

  it('changes nothing when ioredis resends a late call after a reconnect (a failover), past its expiry', async () => {
    const { engine, outcomes } = lateEngine();
    const { tenantId, tally } = await knownTenant(engine);
    // The call is held on its way; the connection drops before Redis has it; ioredis reconnects and sends it again
    // (it resends the commands it was not answered for), by then past its expiry.
    proxy.delay(600);
    const late = Promise.allSettled([engine.consume({ tenantId, rules, cost: 1, tally })]);
    await new Promise((r) => setTimeout(r, 300));
    await proxy.cut();
    proxy.delay(0);
    await proxy.restore();
    deadlines(await late);
    await until(() => outcomes.length === 1);
    expect(outcomes).toEqual(['expired']);
    expect(await usage(tenantId)).toEqual({});
    expect(await left(tenantId)).toBe(100);
  });

  it('expires calls on Redis\'s clock with an injected clock too', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 5, 10, 0, 10));
    const { engine, outcomes } = lateEngine({ clock });
    const tenantId = tenant();
    expect((await engine.consume({ tenantId, rules, cost: 1 })).allowed).toBe(true);
    proxy.delay(1200);
    deadlines(await Promise.allSettled([engine.consume({ tenantId, rules, cost: 1 })]));
    expect(await afterLateReply(outcomes)).toEqual(['expired']);
    expect((await engine.peek({ tenantId, rules, cost: 1 })).rules[0]?.remaining).toBe(100 - 1 - 1); // the peek's own unit
  });

  it('changes nothing when a call is run again after its expiry (a client resending it after a reconnect)', async () => {
    const tenantId = tenant();
    const tally: Tally = { key: usageKey(tenantId), text: tallyText('-|', ['day']) };
    const prepared = prepareRules(rules);
    const [seconds, micros] = await redis.time();
    const redisNow = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const keys: string[] = [];
    pushRuleKeys(keys, `${tenantKeyPrefix(tenantId)}fw:day:-`, prepared.rules[0]!, redisNow);
    const call = (expiresAt: number) => encodeBatch(undefined, [{ operation: 'consume', amount: 1, keys, rules: prepared.rules, ruleArgs: prepared.args, prepared, tally }], { expiresAt, minute: minuteOf(redisNow) });
    const inTime = call(redisNow + 60_000);
    expect(String(await limitScript.run(redis, inTime.keys, inTime.args))).toMatch(/^\d+ 1 99 /);
    const expired = call(redisNow - 1);
    expect(String(await limitScript.run(redis, expired.keys, expired.args))).toMatch(/^expired \d+$/);
    expect(await usage(tenantId)).toEqual({ 'n|-|allowed|': 1, 'c|-|allowed|': 1 });
    expect(await left(tenantId)).toBe(99);
  });
});
