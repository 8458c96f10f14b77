import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { startTcpProxy, type TcpProxy } from '../../../../test/support/tcp-proxy';
import type { LimitRule } from '../contract';
import { DeadlineExceeded } from '../errors';
import { RedisEngine } from './redis-engine';
import { deleteTenantKeys } from './redis-test-support';

// RedisEngineOptions.deadlineMs / onScriptCall: one timer and one observation per script call, against the real
// Redis behind a proxy that can hold its replies back.
describe('RedisEngine deadline per script call', () => {
  let proxy: TcpProxy;
  let slow: Redis;
  let redis: Redis;
  const tenants: string[] = [];
  const rules: LimitRule[] = [{ name: 'minute', algorithm: 'fixed_window', limit: 100, windowMs: 60_000 }];

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

  it('fails every decision of a late call with DeadlineExceeded, ignores its late reply, and observes each call once', async () => {
    const calls: number[] = [];
    const engine = new RedisEngine(slow, { deadlineMs: 80, onScriptCall: (ms) => calls.push(ms) });
    const tenantId = `d-${randomUUID()}`;
    tenants.push(tenantId);
    // The connection made and the script loaded (EVALSHA, NOSCRIPT, EVAL) before the deadline counts: on a busy
    // machine those three round trips alone can take longer than a deadline.
    await new RedisEngine(slow).peek({ tenantId, rules, cost: 1 });

    // Quick Redis: answered, one observation.
    expect((await engine.consume({ tenantId, rules, cost: 1 })).allowed).toBe(true);
    expect(calls).toHaveLength(1);

    // Replies held back 400 ms: three decisions of one batch fail at the deadline, not when Redis answers.
    proxy.delay(400);
    const started = Date.now();
    const late = await Promise.allSettled([1, 2, 3].map(() => engine.consume({ tenantId, rules, cost: 1 })));
    const waited = Date.now() - started;
    expect(late.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of late) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(DeadlineExceeded);
    expect(waited).toBeLessThan(330);
    expect(calls).toHaveLength(2); // one call for the batch of three
    // libuv counts timers from the event loop's time, cached when the turn began: up to 1 ms before the call.
    expect(calls[1]).toBeGreaterThanOrEqual(79);

    // The late reply arrives and changes nothing; a quick Redis answers again. Redis did apply the late call
    // (the deadline cannot take it back): 1 + 3 + 1 charged.
    await new Promise((r) => setTimeout(r, 1000)); // the proxy holds the request and the reply 400 ms each
    proxy.delay(0);
    const after = await engine.consume({ tenantId, rules, cost: 1 });
    expect(after.allowed).toBe(true);
    expect(after.rules[0]?.remaining).toBe(100 - 5);
    expect(calls).toHaveLength(3);
  });
});
