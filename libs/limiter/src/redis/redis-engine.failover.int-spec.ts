import { randomUUID } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../../../../test/support/redis-cluster';
import type { LimitRule, Tally } from '../contract';
import { DeadlineExceeded } from '../errors';
import { preparingEachCall, type RuleListLimiter } from '../prepared-rules';
import { clusterSlotOf, tenantKeyPrefix } from './keys';
import { tallyText } from './protocol';
import { type LateReplyOutcome, limitScript, RedisEngine } from './redis-engine';
import { usageSums } from './redis-test-support';

// No command issued for a check runs after its answer was given (docs/adr/0021-one-request-one-decision.md,
// docs/adr/0027-failures-stay-on-their-node.md): on a real Redis Cluster of 3 primaries with a replica each, a
// check's script call is held by its primary (stopped with SIGSTOP) past the check's deadline and answered without
// Redis. Then the primary either resumes (the call, still in its socket, runs there) or is killed (the client sends
// the call again, to the replica the cluster promotes). Either way the call runs after its expiry and changes
// nothing: the tenant's limit and usage hold the checks Redis answered in time, once each. The client is set up as
// the API's (a command timeout, one retry, the cluster's own retries on failover).
const DAY = 86_400_000;
/** Long enough for a quick call on a loaded machine; a stopped primary misses it whatever it is. */
const DEADLINE_MS = 400;
const rules: LimitRule[] = [{ name: 'day', algorithm: 'fixed_window', limit: 100, windowMs: DAY }];

describe('RedisEngine when a primary stops during a check', () => {
  let cluster: TestCluster;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startCluster({ replicas: 1, nodeTimeoutMs: 1_000, portRange: [34_000, 36_990] });
    client = new Cluster(cluster.nodes, { scaleReads: 'master', enableOfflineQueue: true, redisOptions: { commandTimeout: 1_200, maxRetriesPerRequest: 1 } });
    client.on('error', () => undefined);
    // Connections made and the script loaded on every primary before any deadline counts (a loaded machine).
    for (let i = 0; i < 12; i += 1) await preparingEachCall(new RedisEngine(client)).peek({ tenantId: `warm-${i}`, rules, cost: 1 });
  }, 90_000);
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  const setUp = () => {
    const tenantId = `stop-${randomUUID()}`;
    const tally: Tally = { key: `${tenantKeyPrefix(tenantId)}u:`, text: tallyText('p1|', ['day']) };
    const outcomes: LateReplyOutcome[] = [];
    const engine = preparingEachCall(new RedisEngine(client, { deadlineMs: DEADLINE_MS, onLateReply: (o) => outcomes.push(o) }));
    return { tenantId, tally, outcomes, engine };
  };
  /** `use` on a connection of its own to the node on `port`, closed after. */
  const onNode = async <T>(port: number, use: (node: Redis) => Promise<T>) => {
    const node = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 0 });
    try {
      return await use(node);
    } finally {
      node.disconnect();
    }
  };
  /** Every usage count of the tenant on its primary now (fields summed over the minutes the test spanned). */
  const usage = async (tenantId: string) => onNode(await cluster.primaryOf(tenantKeyPrefix(tenantId)), (node) => usageSums([node], tenantId));
  /** How many script calls (EVALSHA and EVAL) the node on `port` has run. */
  const scriptCalls = async (port: number) =>
    onNode(port, async (node) => [...(await node.info('commandstats')).matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0));
  const waitFor = async (check: () => Promise<boolean> | boolean, timeoutMs = 20_000) => {
    const until = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > until) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /**
   * `ask` again until it is answered within the deadline (a loaded machine can be late once): a peek, which changes
   * nothing, so that the engine has learnt Redis's clock before the test counts anything.
   */
  const inTime = async (ask: () => Promise<unknown>) => {
    for (let i = 0; i < 10; i += 1) if (await ask().then(() => true, (e: unknown) => !(e instanceof DeadlineExceeded) && Promise.reject(e))) return;
    throw new Error('no call was answered within its deadline');
  };
  /** Units left in the rule (an admitted peek's remaining counts its own cost as taken). */
  const left = async (engine: RuleListLimiter, tenantId: string) => {
    const peek = await engine.peek({ tenantId, rules, cost: 1 });
    return (peek.rules[0]?.remaining ?? 0) + (peek.allowed ? 1 : 0);
  };
  /** A consume that misses its deadline, answered 'denied' (a closed failure mode) in the turn it failed. */
  const missed = async (engine: RuleListLimiter, tenantId: string, tally: Tally) => {
    const err = await engine.consume({ tenantId, rules, cost: 1, tally }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DeadlineExceeded);
    (err as DeadlineExceeded).answered(false);
  };
  /**
   * A consume missed (`missed`) while `primary` is stopped, until the client gives up on it (its command timeout: no
   * reply will ever say what became of it); the primary resumes after.
   */
  const missedWhileStopped = async (primary: number, engine: RuleListLimiter, tenantId: string, tally: Tally, outcomes: LateReplyOutcome[]) => {
    cluster.pause(primary);
    try {
      await missed(engine, tenantId, tally);
      await waitFor(() => outcomes.length === 1);
    } finally {
      cluster.resume(primary);
    }
  };

  it('a call held by a stopped primary past its deadline runs there when it resumes, and changes nothing', async () => {
    const { tenantId, tally, outcomes, engine } = setUp();
    await inTime(() => engine.peek({ tenantId, rules, cost: 1 }));
    expect((await engine.consume({ tenantId, rules, cost: 1, tally })).allowed).toBe(true);
    const primary = await cluster.primaryOf(tenantKeyPrefix(tenantId));
    const before = await scriptCalls(primary);

    await missedWhileStopped(primary, engine, tenantId, tally, outcomes);
    expect(outcomes).toEqual(['unknown']);
    // It ran once the primary resumed — after its expiry, so without effect.
    await waitFor(async () => (await scriptCalls(primary)) > before);
    expect(await left(engine, tenantId)).toBe(99);
    expect(await usage(tenantId)).toEqual({ 'n|p1|allowed|': 1, 'c|p1|allowed|': 1 });
  });

  it('a tenant\'s first call, held past its deadline, carries an expiry from its node\'s clock and changes nothing', async () => {
    const { tenantId, tally, outcomes } = setUp();
    const primary = await cluster.primaryOf(tenantKeyPrefix(tenantId));
    // The engine knows the node's clock from another tenant of the same primary; this one it has never asked.
    let other = `other-${randomUUID()}`;
    while ((await cluster.primaryOf(tenantKeyPrefix(other))) !== primary) other = `other-${randomUUID()}`;
    const engine = preparingEachCall(
      new RedisEngine(client, { deadlineMs: DEADLINE_MS, onLateReply: (o) => outcomes.push(o), clockOf: (prefix) => client.slots[clusterSlotOf(prefix)]?.[0] }),
    );
    await inTime(() => engine.peek({ tenantId: other, rules, cost: 1 }));
    const before = await scriptCalls(primary);

    await missedWhileStopped(primary, engine, tenantId, tally, outcomes);
    await waitFor(async () => (await scriptCalls(primary)) > before);
    expect(await left(engine, tenantId)).toBe(100);
    expect(await usage(tenantId)).toEqual({});
  });

  it('a call held by a primary that is killed is sent again by the client to the promoted replica, and changes nothing there', async () => {
    const { tenantId, tally, outcomes, engine } = setUp();
    await inTime(() => engine.peek({ tenantId, rules, cost: 1 }));
    expect((await engine.consume({ tenantId, rules, cost: 1, tally })).allowed).toBe(true);
    const primary = await cluster.primaryOf(tenantKeyPrefix(tenantId));
    // Every node has the script, as after any earlier failover: the copy sent again runs on the promoted replica
    // instead of failing with NOSCRIPT.
    await Promise.all(cluster.nodes.map(({ port }) => onNode(port, (node) => node.script('LOAD', limitScript.source))));

    cluster.pause(primary);
    await missed(engine, tenantId, tally);
    await waitFor(() => outcomes.length === 1);
    expect(outcomes).toEqual(['unknown']);
    cluster.kill(primary);
    const promoted = await cluster.waitForFailover(tenantKeyPrefix(tenantId), primary);
    // A replica runs no script of its own (scripts reach it as their effects): the first script call the promoted
    // node runs is the client's copy of the held one.
    await waitFor(async () => (await scriptCalls(promoted)) >= 1);
    expect(await left(engine, tenantId)).toBe(99);
    expect(await usage(tenantId)).toEqual({ 'n|p1|allowed|': 1, 'c|p1|allowed|': 1 });
  });
});
