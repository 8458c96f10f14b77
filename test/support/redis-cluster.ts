import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A real 3-primary Redis Cluster from Debian's `redis-server`, started for a test file and shut down after
 * it, on free ports (each with its cluster bus port, +10000, free too) unless `basePort` names the first;
 * nothing is kept on disk. With `replicas: 1`, each primary has a replica (6 nodes), which the cluster promotes once
 * its primary has been unreachable for `nodeTimeoutMs` (redis's cluster-node-timeout, 15 s unless said). Only the
 * servers it started are ever shut down, paused or killed.
 */
export interface TestCluster {
  nodes: { host: string; port: number }[];
  client(): Cluster;
  /** The port of the primary that owns `key`'s slot now (asked of a node that answers). */
  primaryOf(key: string): Promise<number>;
  /** Stops the node on `port` (SIGSTOP): its connections stay open, it answers nothing until `resume`. */
  pause(port: number): void;
  resume(port: number): void;
  /** Kills the node on `port` (SIGKILL): its connections are reset, it is gone. */
  kill(port: number): void;
  /** Waits until the replica of the primary on `port` has applied every write the primary had when called. */
  replicaCaughtUp(port: number, timeoutMs?: number): Promise<void>;
  /** Waits until every live node says cluster_state:ok and `port` is no longer the primary of `key`'s slot. */
  waitForFailover(key: string, port: number, timeoutMs?: number): Promise<number>;
  /**
   * Moves `slot` from the primary on `from` to the one on `to` key by key, as `redis-cli --cluster reshard` does:
   * IMPORTING and MIGRATING, MIGRATE in batches of `batch` (25) keys — the slot's keys as `order` arranges them, then
   * whatever it still holds — `pauseMs` (2) apart, then SETSLOT NODE on every primary. The error MIGRATE gave, if any.
   */
  moveSlot(slot: number, from: number, to: number, options?: MoveSlotOptions): Promise<string | undefined>;
  stop(): Promise<void>;
}

export interface MoveSlotOptions {
  batch?: number;
  pauseMs?: number;
  /** The order the slot's keys (at most 100,000 of them, listed once at the start) move in. */
  order?: (keys: string[]) => string[];
}

export interface ClusterOptions {
  basePort?: number;
  /** Where to look for free ports (the first of them, at random) when `basePort` is not given: 20000–28999 unless said. */
  portRange?: [number, number];
  replicas?: 0 | 1;
  nodeTimeoutMs?: number;
  /**
   * `cluster-require-full-coverage` (Redis's default: true): when true, every node refuses every key (CLUSTERDOWN) from
   * the moment a primary is marked failed until its replica is promoted; false, the other primaries keep serving theirs.
   */
  requireFullCoverage?: boolean;
}

export async function startCluster(options: ClusterOptions = {}): Promise<TestCluster> {
  const count = options.replicas ? 6 : 3;
  const first = options.basePort ?? (await freeClusterBase(count, options.portRange ?? [20_000, 28_999]));
  const ports = Array.from({ length: count }, (_, i) => first + i);
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-cluster-'));
  for (const port of ports) {
    const started = spawnSync('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes',
      '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--dir', dir,
      '--save', '', '--appendonly', 'no', '--daemonize', 'yes', '--logfile', join(dir, `${port}.log`),
      ...(options.nodeTimeoutMs ? ['--cluster-node-timeout', String(options.nodeTimeoutMs)] : []),
      ...(options.requireFullCoverage === false ? ['--cluster-require-full-coverage', 'no'] : []),
    ]);
    if (started.status !== 0) throw new Error(`redis-server on ${port} did not start: ${started.stderr.toString()}`);
  }
  for (const port of ports) await waitForPing(port);
  const pids = new Map(ports.map((port) => [port, Number(/process_id:(\d+)/.exec(spawnSync('redis-cli', ['-p', String(port), 'info', 'server']).stdout.toString())?.[1])]));
  const create = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(options.replicas ?? 0), '--cluster-yes']);
  if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout.toString()}${create.stderr.toString()}`);
  await waitForClusterOk(ports);
  if (options.replicas) await waitForReplicas(ports);
  const nodes = ports.map((port) => ({ host: '127.0.0.1', port }));
  const clients: Cluster[] = [];
  const paused = new Set<number>();
  const dead = new Set<number>();
  const signal = (port: number, sig: NodeJS.Signals) => {
    const pid = pids.get(port);
    if (!pid) throw new Error(`no redis-server of this cluster on ${port}`);
    process.kill(pid, sig);
  };
  const primaryOf = async (key: string): Promise<number> => {
    for (const port of ports.filter((p) => !paused.has(p) && !dead.has(p))) {
      const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, commandTimeout: 1_000 });
      try {
        await r.connect();
        const slot = (await r.cluster('KEYSLOT', key)) as number;
        const row = (await r.cluster('SLOTS')).find(([start, end]) => slot >= start && slot <= end);
        if (row?.[2]) return row[2][1];
      } catch {
        // ask another node
      } finally {
        r.disconnect();
      }
    }
    throw new Error(`no node of the cluster named the primary of ${key}`);
  };
  return {
    nodes,
    client() {
      const c = new Cluster(nodes, { scaleReads: 'master', redisOptions: { maxRetriesPerRequest: 2 } });
      clients.push(c);
      return c;
    },
    primaryOf,
    pause(port) {
      signal(port, 'SIGSTOP');
      paused.add(port);
    },
    resume(port) {
      signal(port, 'SIGCONT');
      paused.delete(port);
    },
    kill(port) {
      signal(port, 'SIGKILL');
      if (paused.has(port)) signal(port, 'SIGCONT');
      paused.delete(port);
      dead.add(port);
    },
    async replicaCaughtUp(port, timeoutMs = 10_000) {
      const offset = (text: string, field: string) => Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(text)?.[1] ?? -1);
      const primary = await run('redis-cli', ['-p', String(port), 'info', 'replication']);
      const written = offset(primary, 'master_repl_offset');
      // slave0:ip=127.0.0.1,port=…,state=online,offset=…,lag=… — the offset there is the replica's last
      // acknowledgement (once a second); the replica's own slave_repl_offset says what it has applied now.
      const replica = Number(/^slave0:.*\bport=(\d+)/m.exec(primary)?.[1]);
      if (!replica) throw new Error(`the primary on ${port} has no replica`);
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        if (offset(await run('redis-cli', ['-p', String(replica), 'info', 'replication']), 'slave_repl_offset') >= written) return;
        await sleep(20);
      }
      throw new Error(`the replica of ${port} did not catch up within ${timeoutMs} ms`);
    },
    async waitForFailover(key, port, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        const live = ports.filter((p) => !paused.has(p) && !dead.has(p));
        // Asynchronously: a test may run an API in this process, whose event loop must not stop meanwhile.
        const infos = await Promise.all(live.map((p) => run('redis-cli', ['-p', String(p), 'cluster', 'info']).catch(() => '')));
        const ok = infos.every((info) => info.includes('cluster_state:ok'));
        const now = ok ? await primaryOf(key).catch(() => port) : port;
        if (now !== port) return now;
        await sleep(100);
      }
      throw new Error(`no replica took over ${key}'s slot from ${port} within ${timeoutMs} ms`);
    },
    async moveSlot(slot, from, to, { batch = 25, pauseMs = 2, order = (keys: string[]) => keys } = {}) {
      const connect = (port: number) => new Redis({ port, host: '127.0.0.1' });
      const [source, target] = [connect(from), connect(to)];
      try {
        const sourceId = String(await source.cluster('MYID'));
        const targetId = String(await target.cluster('MYID'));
        await target.cluster('SETSLOT', slot, 'IMPORTING', sourceId);
        await source.cluster('SETSLOT', slot, 'MIGRATING', targetId);
        const ordered = order((await source.cluster('GETKEYSINSLOT', slot, 100_000)) as string[]);
        for (let at = 0; ; at += batch) {
          const keys = at < ordered.length ? ordered.slice(at, at + batch) : ((await source.cluster('GETKEYSINSLOT', slot, batch)) as string[]);
          if (keys.length === 0) break;
          try {
            // A key gone since (expired, or moved by an earlier batch) is skipped by MIGRATE (NOKEY).
            await source.migrate('127.0.0.1', to, '', 0, 5_000, 'KEYS', ...keys);
          } catch (err) {
            return (err as Error).message;
          }
          await sleep(pauseMs);
        }
        for (const port of ports.filter((p) => !paused.has(p) && !dead.has(p))) {
          const node = connect(port);
          try {
            // Replicas refuse SETSLOT ("Please use SETSLOT only with masters"): they follow their primary.
            if ((await node.role())[0] === 'master') await node.cluster('SETSLOT', slot, 'NODE', targetId);
          } finally {
            node.disconnect();
          }
        }
        return undefined;
      } finally {
        source.disconnect();
        target.disconnect();
      }
    },
    async stop() {
      await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
      for (const port of paused) signal(port, 'SIGCONT');
      for (const port of ports.filter((p) => !dead.has(p))) await shutdown(port);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A first port of `count` in a row whose cluster bus ports (+10000) are free too. */
async function freeClusterBase(count: number, [from, to]: [number, number]): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = from + Math.floor(Math.random() * (to - from - count));
    const ports = Array.from({ length: count }, (_, i) => base + i).flatMap((p) => [p, p + 10_000]);
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) return base;
  }
  throw new Error(`found no ${count} free ports in a row for a Redis Cluster`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function waitForPing(port: number): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await r.connect();
      if ((await r.ping()) === 'PONG') return;
    } catch {
      // not up yet
    } finally {
      r.disconnect();
    }
    await sleep(50);
  }
  throw new Error(`redis-server on ${port} did not answer`);
}

async function waitForClusterOk(ports: number[]): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    const states = ports.map((port) => spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info']).stdout.toString());
    if (states.every((s) => s.includes('cluster_state:ok'))) return;
    await sleep(50);
  }
  throw new Error('the cluster did not reach cluster_state:ok');
}

const execFileAsync = promisify(execFile);
const run = async (file: string, args: string[]) => (await execFileAsync(file, args, { timeout: 5_000 })).stdout;

/** Every replica has caught up with its primary (master_link_status:up). */
async function waitForReplicas(ports: number[]): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    const infos = ports.map((port) => spawnSync('redis-cli', ['-p', String(port), 'info', 'replication']).stdout.toString());
    const replicas = infos.filter((s) => s.includes('role:slave'));
    if (replicas.length === ports.length / 2 && replicas.every((s) => s.includes('master_link_status:up'))) return;
    await sleep(50);
  }
  throw new Error('the replicas did not catch up with their primaries');
}

async function shutdown(port: number): Promise<void> {
  spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave']);
}
