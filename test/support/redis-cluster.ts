import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { sleep } from './fixtures';

/**
 * A real 3-primary Redis Cluster from Debian's `redis-server`, started for a test file and shut down after
 * it, on three free ports (each with its cluster bus port, +10000, free too) unless `basePort` names them;
 * nothing is kept on disk. Only the servers it started are ever shut down.
 */
export interface TestCluster {
  nodes: { host: string; port: number }[];
  client(): Cluster;
  stop(): Promise<void>;
}

export async function startCluster(basePort?: number): Promise<TestCluster> {
  const first = basePort ?? (await freeClusterBase());
  const ports = [first, first + 1, first + 2];
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-cluster-'));
  for (const port of ports) {
    const started = spawnSync('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes',
      '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--dir', dir,
      '--save', '', '--appendonly', 'no', '--daemonize', 'yes', '--logfile', join(dir, `${port}.log`),
    ]);
    if (started.status !== 0) throw new Error(`redis-server on ${port} did not start: ${started.stderr.toString()}`);
  }
  for (const port of ports) await waitForPing(port);
  const create = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes']);
  if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout.toString()}${create.stderr.toString()}`);
  await waitForClusterOk(ports);
  const nodes = ports.map((port) => ({ host: '127.0.0.1', port }));
  const clients: Cluster[] = [];
  return {
    nodes,
    client() {
      const c = new Cluster(nodes, { scaleReads: 'master', redisOptions: { maxRetriesPerRequest: 2 } });
      clients.push(c);
      return c;
    },
    async stop() {
      await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
      for (const port of ports) await shutdown(port);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A first port of three in a row whose cluster bus ports (+10000) are free too. */
async function freeClusterBase(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 20_000 + Math.floor(Math.random() * 9_000);
    const ports = [base, base + 1, base + 2].flatMap((p) => [p, p + 10_000]);
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) return base;
  }
  throw new Error('found no three free ports in a row for a Redis Cluster');
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

async function shutdown(port: number): Promise<void> {
  spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave']);
}
