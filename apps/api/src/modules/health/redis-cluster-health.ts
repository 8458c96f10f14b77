import { CLUSTER_SLOTS } from '@tollgate/limiter';
import { type Cluster, Redis } from 'ioredis';

/** How a primary of a Redis Cluster is: `ok`, `fail` (it answers, but its `CLUSTER INFO` says `cluster_state:fail`) or `unreachable`. */
export type PrimaryState = 'ok' | 'fail' | 'unreachable';

/** What /health says of a Redis Cluster: each primary with its slot ranges and state, and the slots no primary owns. */
export interface ClusterHealth {
  state: 'ok' | 'fail';
  primaries: { node: string; slots: string[]; state: PrimaryState }[];
  /** Slot ranges without a primary (in the cluster's own view, else the client's). */
  uncovered: string[];
}

/** `[start, end, [host, port, id, ...] of the primary, ...replicas]` rows of `CLUSTER SLOTS`. */
type SlotsReply = [start: number, end: number, ...nodes: [host: string, port: number, ...rest: unknown[]][]][];

/**
 * The health of the Redis Cluster `client` talks to, in at most `timeoutMs`: every primary the client has a connection
 * to is asked `CLUSTER INFO` and `CLUSTER SLOTS` (half the time); the slot map is the one a healthy primary answered
 * (else the client's own), and every primary it names that was not asked yet (the client dropped its connection, or
 * has not learnt of a promoted replica) is asked `CLUSTER INFO` on a connection of its own (the other half). A primary
 * that does not answer in time is `unreachable`; the cluster is `ok` only when every primary is `ok` and every slot has
 * one. Nothing is retried or queued: a paused or dead primary costs this the timeout, not more.
 */
export async function clusterHealth(client: Cluster, timeoutMs: number): Promise<ClusterHealth> {
  const half = Math.max(1, Math.floor(timeoutMs / 2));
  const asked = new Map<string, { state: PrimaryState; slots?: SlotsReply }>();
  await Promise.all(
    client.nodes('master').map(async (node) => {
      const key = nodeKey(node.options.host, node.options.port);
      try {
        const [info, slots] = await within(Promise.all([node.cluster('INFO') as Promise<string>, node.cluster('SLOTS')]), half);
        asked.set(key, { state: stateOf(info), slots: withHost(slots, node.options.host) });
      } catch {
        asked.set(key, { state: 'unreachable' });
      }
    }),
  );
  const view = [...asked.values()].find((a) => a.state === 'ok' && a.slots)?.slots;
  const owners = view ? ownersOf(view) : clientOwners(client);
  const others = [...new Set(owners.filter((o): o is string => o !== undefined))].filter((node) => !asked.has(node));
  await Promise.all(others.map(async (node) => asked.set(node, { state: await askAlone(client, node, half) })));
  const primaries = [...new Set(owners.filter((o): o is string => o !== undefined))].sort().map((node) => ({
    node,
    slots: rangesOf(owners, (owner) => owner === node),
    state: asked.get(node)?.state ?? 'unreachable',
  }));
  const uncovered = rangesOf(owners, (owner) => owner === undefined);
  const ok = uncovered.length === 0 && primaries.length > 0 && primaries.every((p) => p.state === 'ok');
  return { state: ok ? 'ok' : 'fail', primaries, uncovered };
}

function nodeKey(host: string | undefined, port: number | undefined): string {
  return `${host ?? '127.0.0.1'}:${port ?? 6379}`;
}

function stateOf(info: string): PrimaryState {
  return /^cluster_state:ok\s*$/m.test(info) ? 'ok' : 'fail';
}

/** A slot map whose rows name no host (a node that does not know its own address) names `host`. */
function withHost(slots: SlotsReply, host: string | undefined): SlotsReply {
  return slots.map(([start, end, ...nodes]) => [start, end, ...nodes.map(([h, port, ...rest]): [string, number, ...unknown[]] => [h === '' || h === '?' ? (host ?? '127.0.0.1') : h, port, ...rest])]);
}

/** Per slot, `host:port` of its primary, or undefined. */
function ownersOf(view: SlotsReply): (string | undefined)[] {
  const owners: (string | undefined)[] = new Array<string | undefined>(CLUSTER_SLOTS).fill(undefined);
  for (const [start, end, primary] of view) {
    if (!primary) continue;
    for (let slot = start; slot <= end && slot < CLUSTER_SLOTS; slot += 1) owners[slot] = nodeKey(primary[0], primary[1]);
  }
  return owners;
}

function clientOwners(client: Cluster): (string | undefined)[] {
  return Array.from({ length: CLUSTER_SLOTS }, (_, slot) => client.slots[slot]?.[0]);
}

/** `a-b` (or `a`) ranges of the slots whose owner `matches`. */
function rangesOf(owners: readonly (string | undefined)[], matches: (owner: string | undefined) => boolean): string[] {
  const ranges: string[] = [];
  let start = -1;
  for (let slot = 0; slot <= owners.length; slot += 1) {
    const hit = slot < owners.length && matches(owners[slot]);
    if (hit && start === -1) start = slot;
    if (!hit && start !== -1) {
      ranges.push(start === slot - 1 ? String(start) : `${start}-${slot - 1}`);
      start = -1;
    }
  }
  return ranges;
}

/** `CLUSTER INFO` of `node` on a connection of its own (with the cluster's credentials and TLS), closed after. */
async function askAlone(client: Cluster, node: string, timeoutMs: number): Promise<PrimaryState> {
  const at = node.lastIndexOf(':');
  const redis = new Redis({
    ...client.options.redisOptions,
    host: node.slice(0, at),
    port: Number(node.slice(at + 1)),
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: true,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    return stateOf(await within(redis.connect().then(() => redis.cluster('INFO') as Promise<string>), timeoutMs));
  } catch {
    return 'unreachable';
  } finally {
    redis.disconnect();
  }
}

/** `promise`, or a rejection once `ms` passed. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
