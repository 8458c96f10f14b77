import { preparingEachCall } from '../prepared-rules';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../../../test/support/fixtures';
import { startCluster, type TestCluster } from '../../../../test/support/redis-cluster';
import { windowAt } from '../algorithms/fixed-window';
import type { LimitRule } from '../contract';
import { resolveRule } from '../rules';
import { tenantKeyPrefix, tenantTag } from './keys';
import { tallyText } from './protocol';
import { RedisEngine } from './redis-engine';

// A slot migration (what `redis-cli --cluster reshard` does) of a tenant's slot while its checks go on: every key the
// limit script touches is declared, so Redis sends each call where all of them are (ASK / TRYAGAIN while they are on
// both sides), and no window starts again on the importing node, no count goes there unseen, and no key is created
// there that MIGRATE then finds in its way (BUSYKEY).

let cluster: TestCluster;
let nodes: Redis[];
beforeAll(async () => {
  cluster = await startCluster();
  nodes = cluster.nodes.map(({ host, port }) => new Redis({ host, port }));
}, 60_000);
afterAll(async () => {
  for (const node of nodes ?? []) node.disconnect();
  await cluster?.stop();
});

/** Other keys of the slot: MIGRATE moves a slot in batches of keys, so the tenant's keys move in the middle of it. */
const OTHER_KEYS = 3_000;
const BATCH = 25;

const minute: LimitRule = { name: 'minute', algorithm: 'fixed_window', limit: 51, windowMs: 60_000 };
const daily: LimitRule = { name: 'daily', algorithm: 'fixed_window', limit: 40, windowMs: 0, calendar: { unit: 'day', timeZone: 'Europe/Berlin' } };

interface Made {
  rule: LimitRule;
  allowed: boolean;
  nowMs: number;
}

/**
 * The order the slot's keys move in (`redis-cli --cluster reshard` takes GETKEYSINSLOT's, the hash table's: this fixes
 * one where checks run a while on each side): half the other keys first, then the tenant's (`tenantPrefix`), then the rest.
 */
const tenantInTheMiddle = (tenantPrefix: string) => (all: string[]) => {
  const others = all.filter((key) => !key.startsWith(tenantPrefix));
  const half = Math.floor(others.length / 2);
  return [...others.slice(0, half), ...all.filter((key) => key.startsWith(tenantPrefix)), ...others.slice(half)];
};

describe('RedisEngine during a slot migration', () => {
  it('admits nothing beyond a fixed window\'s or a calendar day\'s limit, counts every decision, and lets the migration finish', async () => {
    const client = cluster.client();
    const engine = preparingEachCall(new RedisEngine(client));
    const tenantId = `migrating-${Date.now()}`;
    const prefix = tenantKeyPrefix(tenantId);
    const slot = Number(await nodes[0]!.cluster('KEYSLOT', prefix));
    const ownerId = String(await nodes[0]!.cluster('NODES'))
      .split('\n')
      .find((line) => line.split(' ').slice(8).some((range) => inRange(range, slot)))
      ?.split(' ')[0];
    const ids = await Promise.all(nodes.map(async (node) => String(await node.cluster('MYID'))));
    const owner = ids.indexOf(ownerId ?? '');
    expect(owner).toBeGreaterThanOrEqual(0);
    const source = nodes[owner]!;
    const target = nodes[(owner + 1) % nodes.length]!;
    const filler = source.pipeline();
    for (let i = 0; i < OTHER_KEYS; i += 1) filler.set(`other:{${tenantTag(tenantId)}}:${i}`, 'x');
    await filler.exec();

    // A steady load of 200 checks a second, each of the two limits in turn, all counted into the tenant's usage.
    const made: Made[] = [];
    const errors: string[] = [];
    const tally = (rule: LimitRule) => ({ key: `${prefix}u:`, text: tallyText('-|', [rule.name]) });
    let tick = 0;
    const pending: Promise<void>[] = [];
    const load = setInterval(() => {
      const rule = tick++ % 2 === 0 ? minute : daily;
      pending.push(
        engine.consume({ tenantId, cost: 1, rules: [rule], tally: tally(rule) }).then(
          (d) => void made.push({ rule, allowed: d.allowed, nowMs: d.nowMs }),
          (err: Error) => void errors.push(err.message),
        ),
      );
    }, 5);
    let migrationError: string | undefined;
    try {
      // Both limits used up before the slot starts to move.
      while (!(made.some((d) => d.rule === minute && !d.allowed) && made.some((d) => d.rule === daily && !d.allowed))) await sleep(20);
      migrationError = await cluster.moveSlot(slot, source.options.port!, target.options.port!, { batch: BATCH, order: tenantInTheMiddle(prefix) });
      await sleep(300);
    } finally {
      clearInterval(load);
    }
    await Promise.all(pending);
    console.info(`slot migration under load: ${made.length} decisions (${made.filter((d) => d.allowed).length} admitted), ${errors.length} checks failed`, [...new Set(errors)]);

    // Each of what follows is checked whatever the others found (expect.soft), so that a failure shows all of them.
    // The migration finished: the slot is the target's, whole, every key moved, none left behind.
    expect.soft(migrationError).toBeUndefined();
    expect.soft(Number(await source.cluster('COUNTKEYSINSLOT', slot))).toBe(0);
    expect.soft(Number(await target.cluster('COUNTKEYSINSLOT', slot))).toBeGreaterThanOrEqual(OTHER_KEYS);
    // No window admitted more than its limit (a window that began during the test has its own).
    for (const rule of [minute, daily]) {
      const perWindow = new Map<number, number>();
      const resolved = resolveRule(rule, 0);
      for (const d of made) if (d.rule === rule && d.allowed) perWindow.set(windowAt(resolved, d.nowMs).start, (perWindow.get(windowAt(resolved, d.nowMs).start) ?? 0) + 1);
      for (const [start, admitted] of perWindow) expect.soft(admitted, `${rule.name} from ${new Date(start).toISOString()}`).toBeLessThanOrEqual(rule.limit);
    }
    // Every decision made is counted, once; a check that failed (a redirection given up on) is no decision.
    const usage = new Map<string, number>();
    for (const node of nodes) {
      for (const key of (await node.keys(`${prefix}u:*`)) as string[]) {
        for (const [field, value] of Object.entries(await node.hgetall(key))) usage.set(field, (usage.get(field) ?? 0) + Number(value));
      }
    }
    const admitted = made.filter((d) => d.allowed).length;
    expect.soft({ allowed: usage.get('n|-|allowed|') ?? 0, charged: usage.get('c|-|allowed|') ?? 0 }).toEqual({ allowed: admitted, charged: admitted });
    expect.soft({ minute: usage.get('n|-|denied|minute') ?? 0, daily: usage.get('n|-|denied|daily') ?? 0 }).toEqual({
      minute: made.filter((d) => d.rule === minute && !d.allowed).length,
      daily: made.filter((d) => d.rule === daily && !d.allowed).length,
    });
    // The load went on through the migration: most checks were decided.
    expect(made.length).toBeGreaterThan(errors.length);
    await client.quit();
  }, 90_000);
});

/** Whether a CLUSTER NODES slot range (`5461-10922`, or `42`) holds `slot`. */
function inRange(range: string, slot: number): boolean {
  const [from, to = from] = range.split('-').map(Number);
  return from !== undefined && to !== undefined && slot >= from && slot <= to;
}
