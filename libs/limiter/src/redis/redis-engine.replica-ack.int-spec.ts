import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replicaOf, startSentinel, type TestSentinel } from '../../../../test/support/redis-sentinel';
import type { LimitRule, Tally } from '../contract';
import { InvalidLimitRequestError, ReplicaAckMissing } from '../errors';
import { preparingEachCall } from '../prepared-rules';
import { ruleKey, tenantKeyPrefix } from './keys';
import { minuteOf, tallyText } from './protocol';
import { RedisEngine } from './redis-engine';
import { deleteTenantKeys, fixedWindowCount, tenantIds } from './redis-test-support';

// `replicaAck`: a decision is answered from Redis only once a replica holds its writes (WAIT), so a failover that
// promotes the replica cannot forget what was admitted; without the acknowledgement it is undone as a late reply
// (docs/adr/0021-one-request-one-decision.md). On the suite's own primary and replica (test/support/redis-sentinel.ts).
describe('RedisEngine decisions that wait for a replica', () => {
  let servers: TestSentinel;
  let primary: Redis;
  let replica: Redis;
  let waiting: Redis;
  let replicaAddress: { host: string; port: number };
  const tenants: string[] = [];
  const minute: LimitRule = { name: 'minute', algorithm: 'fixed_window', limit: 5, windowMs: 60_000 };
  const tenant = tenantIds(tenants, 'ack');
  const tallyOf = (tenantId: string): Tally => ({ key: `${tenantKeyPrefix(tenantId)}u:`, text: tallyText('p|', ['minute']) });
  const usage = (tenantId: string) => primary.hgetall(`${tenantKeyPrefix(tenantId)}u:${minuteOf(Date.now())}`);
  // Timeouts a loaded machine's replica meets: the tests that expect an acknowledgement must not miss it by a stall.
  const engine = (timeoutMs = 2_000) => preparingEachCall(new RedisEngine(primary, { replicaAck: { clients: [waiting], replicas: 1, timeoutMs }, deadlineMs: 5_000 }));

  beforeAll(async () => {
    servers = await startSentinel({ sentinels: 1 });
    const { host, port } = servers.primary();
    primary = new Redis({ host, port });
    waiting = new Redis({ host, port });
    replicaAddress = await replicaOf(servers);
    replica = new Redis(replicaAddress);
  }, 60_000);
  afterAll(async () => {
    await deleteTenantKeys(primary, tenants);
    for (const client of [primary, waiting, replica]) client.disconnect();
    await servers.stop();
  });

  it('answers from Redis once the replica holds the decision, whose count the replica then has', async () => {
    const tenantId = tenant();
    const limiter = engine();
    const decisions = await Promise.all([1, 2, 3].map(() => limiter.consume({ tenantId, cost: 2, rules: [minute], replicaAck: true, tally: tallyOf(tenantId) })));
    expect(decisions.map((d) => [d.allowed, d.rules[0]!.remaining])).toEqual([[true, 3], [true, 1], [false, 1]]);
    // WAIT returned: the replica has applied the writes already, nothing to wait for here.
    expect(fixedWindowCount(await replica.get(ruleKey(tenantId, minute, undefined)))).toBe(4);
    expect(await usage(tenantId)).toEqual({ 'n|p|allowed|': '2', 'c|p|allowed|': '4', 'n|p|denied|minute': '1' });
  });

  it('fails a decision no replica acknowledged in time, and undoes it as the caller answered', async () => {
    // The replica leaves: the primary has none to acknowledge.
    await replica.replicaof('NO', 'ONE');
    try {
      const tenantId = tenant();
      const limiter = engine(50);
      const attempt = async (answeredAllowed: boolean) => {
        const err = await limiter.consume({ tenantId, cost: 2, rules: [minute], replicaAck: true, tally: tallyOf(tenantId) }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ReplicaAckMissing);
        expect((err as ReplicaAckMissing).message).toBe('0 of 1 replicas acknowledged the decision\'s writes within 50 ms');
        (err as ReplicaAckMissing).answered(answeredAllowed);
      };
      // Answered denied (a closed failure mode): the charge is given back, the count taken back.
      await attempt(false);
      const plain = preparingEachCall(new RedisEngine(primary));
      // What a check of cost 1 would leave: 4 of 5 on an empty window.
      const peek = () => plain.peek({ tenantId, cost: 1, rules: [minute] });
      await expect.poll(async () => (await peek()).rules[0]!.remaining).toBe(4);
      await expect.poll(() => usage(tenantId)).toEqual({});
      // Answered allowed (open): the charge stays (the request went ahead), the count is still taken back (the caller
      // counts the answer it gave).
      await attempt(true);
      await expect.poll(async () => (await peek()).rules[0]!.remaining).toBe(2);
      expect(await usage(tenantId)).toEqual({});
    } finally {
      await replica.replicaof(servers.primary().host, servers.primary().port);
      await expect.poll(async () => (await replica.info('replication')).includes('master_link_status:up'), { timeout: 20_000 }).toBe(true);
    }
  });

  it('keeps decisions that do not wait out of the waiting ones\' calls', async () => {
    const tenantId = tenant();
    let calls = 0;
    const limiter = preparingEachCall(
      new RedisEngine(primary, { replicaAck: { clients: [waiting], replicas: 1, timeoutMs: 2_000 }, onScriptCall: () => (calls += 1) }),
    );
    const [waited, plain] = await Promise.all([
      limiter.consume({ tenantId, cost: 1, rules: [minute], replicaAck: true }),
      limiter.consume({ tenantId, cost: 1, rules: [minute] }),
    ]);
    expect([waited.allowed, plain.allowed]).toEqual([true, true]);
    expect(calls).toBe(2);
  });

  it('refuses a decision that asks to wait on an engine without a connection for it', async () => {
    const limiter = preparingEachCall(new RedisEngine(primary));
    await expect(limiter.consume({ tenantId: tenant(), cost: 1, rules: [minute], replicaAck: true })).rejects.toBeInstanceOf(InvalidLimitRequestError);
  });
});

// The failover waiting for a replica is for: a primary dies while its replica is behind (here SIGSTOPped and cut off,
// so that it misses the last charges), and the replica is promoted. What the primary admitted and the replica never received is
// admitted again; what waited for the replica was never admitted by Redis.
describe('RedisEngine across a failover after the replica fell behind', () => {
  let servers: TestSentinel;
  beforeAll(async () => {
    servers = await startSentinel({ sentinels: 1 });
  }, 60_000);
  afterAll(async () => {
    await servers.stop();
  });

  it('admits again what the replica missed when decisions do not wait, and nothing beyond the limit when they do', async () => {
    const hour: LimitRule = { name: 'hour', algorithm: 'fixed_window', limit: 5, windowMs: 3_600_000 };
    const [plainTenant, ackedTenant] = [`ack-${randomUUID()}`, `ack-${randomUUID()}`];
    const connect = (node: { host: string; port: number }) => {
      const client = new Redis({ ...node, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined);
      return client;
    };
    const primary = connect(servers.primary());
    const waiting = connect(servers.primary());
    const before = preparingEachCall(new RedisEngine(primary, { replicaAck: { clients: [waiting], replicas: 1, timeoutMs: 50 } }));
    const replicaAddress = await replicaOf(servers);
    await servers.replicaCaughtUp();

    // The replica stops and the primary drops its link: what the primary writes from now on never reaches it (a
    // paused replica alone would still read what the kernel had buffered for it).
    const resume = servers.pause(replicaAddress);
    try {
      await primary.call('CLIENT', 'KILL', 'TYPE', 'replica');
      for (let i = 0; i < 3; i += 1) expect((await before.consume({ tenantId: plainTenant, cost: 1, rules: [hour] })).allowed).toBe(true);
      for (let i = 0; i < 3; i += 1) {
        const err = await before.consume({ tenantId: ackedTenant, cost: 1, rules: [hour], replicaAck: true }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ReplicaAckMissing);
        // A closed failure mode: the client was refused.
        (err as ReplicaAckMissing).answered(false);
      }
      servers.killPrimary();
    } finally {
      resume();
    }
    primary.disconnect();
    waiting.disconnect();
    await servers.waitForPromotion(replicaAddress);

    const promoted = connect(replicaAddress);
    try {
      const after = preparingEachCall(new RedisEngine(promoted));
      const admitted = async (tenantId: string) => {
        let allowed = 0;
        for (let i = 0; i < 6; i += 1) if ((await after.consume({ tenantId, cost: 1, rules: [hour] })).allowed) allowed += 1;
        return allowed;
      };
      // The 3 the primary admitted without waiting are gone with it: 5 more, 8 in the window (3 over the limit).
      expect(await admitted(plainTenant)).toBe(5);
      // Redis admitted none of the waiting tenant's 3 (its failure mode answered): exactly the limit, 5.
      expect(await admitted(ackedTenant)).toBe(5);
    } finally {
      await deleteTenantKeys(promoted, [plainTenant, ackedTenant]);
      promoted.disconnect();
    }
  });
});
