import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../scripts/lib/redis-server.mjs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface HostPort {
  host: string;
  port: number;
}

/**
 * A primary, one replica (`--replicaof`) and `sentinels` (1–3) `redis-server --sentinel` processes watching it under
 * the name `master`, from Debian's `redis-server`, on free ports of 127.0.0.1, started for a test file. Nothing is kept
 * on disk (the sentinels rewrite their config file, which lives in a temporary folder removed by `stop`). Every
 * process is a child of the test's: `stop` and `killPrimary` end only those, by their pid.
 */
export interface TestSentinel {
  master: string;
  sentinels: HostPort[];
  /** Where the primary is now (the replica once it has been promoted). */
  primary(): HostPort;
  /** The settings of the API and the worker: REDIS_URL (its host unused), REDIS_SENTINELS, REDIS_SENTINEL_MASTER. */
  env: Record<string, string>;
  /** A client of the primary through the sentinels, as the apps connect (closed by `stop`). */
  client(): Redis;
  /** Waits until the replica has applied every write the primary had when called (its replication offset). */
  replicaCaughtUp(timeoutMs?: number): Promise<void>;
  /** SIGKILLs the primary (a crash: nothing is saved or handed over) and says which it was. */
  killPrimary(): HostPort;
  /**
   * SIGSTOPs the server at `node` (a replica falling behind: it applies nothing until resumed); the function returned
   * SIGCONTs it.
   */
  pause(node: HostPort): () => void;
  /** Waits until every sentinel names `to` as the primary and it answers as one; resolves with it. */
  waitForPromotion(to: HostPort, timeoutMs?: number): Promise<HostPort>;
  stop(): Promise<void>;
}

/** How fast the sentinels act: a primary silent for this long is down, and a failover may start. */
const DOWN_AFTER_MS = 1000;

export async function startSentinel({ sentinels: count = 3, master = 'tollgate' }: { sentinels?: 1 | 2 | 3; master?: string } = {}): Promise<TestSentinel> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-sentinel-'));
  const children = new Map<number, ChildProcess>();
  const clients: Redis[] = [];
  const start = (port: number, args: string[]) => {
    const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    children.set(port, child);
  };
  const data = (port: number, extra: string[] = []) =>
    start(port, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', join(dir, `${port}.log`), ...extra]);

  try {
    const [primaryPort, replicaPort] = [await freePort(), await freePort()];
    data(primaryPort);
    data(replicaPort, ['--replicaof', '127.0.0.1', String(primaryPort)]);
    await Promise.all([waitForPing(primaryPort), waitForPing(replicaPort)]);
    await waitFor(async () => (await info(replicaPort, 'replication')).includes('master_link_status:up'), 20_000, `the replica on ${replicaPort} did not sync`);

    // A majority of the sentinels must agree on a failover: 1 of 1, 2 of 2, 2 of 3.
    const quorum = count === 1 ? 1 : 2;
    const sentinelPorts: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const port = await freePort();
      const conf = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `logfile ${join(dir, `sentinel-${port}.log`)}`,
          `sentinel monitor ${master} 127.0.0.1 ${primaryPort} ${quorum}`,
          `sentinel down-after-milliseconds ${master} ${DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${master} 10000`,
          `sentinel parallel-syncs ${master} 1`,
          '',
        ].join('\n'),
      );
      start(port, [conf, '--sentinel']);
      sentinelPorts.push(port);
    }
    await Promise.all(sentinelPorts.map((port) => waitForPing(port)));
    // Each sentinel knows the replica (it can promote it) and the other sentinels (they can vote).
    for (const port of sentinelPorts) {
      await waitFor(
        async () => {
          const state = await sentinelCall(port, ['master', master]);
          const field = (name: string) => state[state.indexOf(name) + 1];
          return Number(field('num-slaves')) === 1 && Number(field('num-other-sentinels')) === count - 1;
        },
        30_000,
        `sentinel on ${port} did not find the replica and the other sentinels`,
      );
    }

    let primary: HostPort = { host: '127.0.0.1', port: primaryPort };
    const sentinels = sentinelPorts.map((port) => ({ host: '127.0.0.1', port }));
    const handle: TestSentinel = {
      master,
      sentinels,
      primary: () => primary,
      env: { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_SENTINELS: sentinels.map((s) => `${s.host}:${s.port}`).join(','), REDIS_SENTINEL_MASTER: master },
      client() {
        const c = new Redis({ sentinels, name: master, maxRetriesPerRequest: 20 });
        c.on('error', () => undefined);
        clients.push(c);
        return c;
      },
      async replicaCaughtUp(timeoutMs = 10_000) {
        const offset = (text: string, field: string) => Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(text)?.[1] ?? -1);
        const written = offset(await info(primary.port, 'replication'), 'master_repl_offset');
        const replica = await replicaOf(handle);
        await waitFor(async () => offset(await info(replica.port, 'replication'), 'slave_repl_offset') >= written, timeoutMs, 'the replica did not catch up');
      },
      killPrimary() {
        const killed = primary;
        children.get(killed.port)?.kill('SIGKILL');
        return killed;
      },
      pause(node) {
        const child = children.get(node.port);
        child?.kill('SIGSTOP');
        return () => void child?.kill('SIGCONT');
      },
      async waitForPromotion(to, timeoutMs = 30_000) {
        await waitFor(
          async () => {
            const named = await Promise.all(sentinelPorts.map((port) => sentinelCall(port, ['get-master-addr-by-name', master]).catch(() => [])));
            if (!named.every((addr) => addr[0] === to.host && Number(addr[1]) === to.port)) return false;
            return (await info(to.port, 'replication')).includes('role:master');
          },
          timeoutMs,
          `the sentinels did not promote ${to.host}:${to.port}`,
        );
        primary = to;
        return to;
      },
      async stop() {
        await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
        await stopAll(children);
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return handle;
  } catch (err) {
    await stopAll(children);
    const logs = spawnLogs(dir);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${String(err)}\n${logs}`);
  }
}

/** The replica's address of a freshly started TestSentinel (the one a failover promotes: there is no other). */
export async function replicaOf(sentinel: TestSentinel): Promise<HostPort> {
  const port = sentinel.sentinels[0]!.port;
  const replicas = (await sentinelCall(port, ['replicas', sentinel.master])) as unknown as string[][];
  const fields = replicas[0]!;
  return { host: fields[fields.indexOf('ip') + 1]!, port: Number(fields[fields.indexOf('port') + 1]) };
}

async function stopAll(children: Map<number, ChildProcess>): Promise<void> {
  await Promise.all(
    [...children.values()].map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** The last lines of every server's log, for an error saying why the setup failed. */
function spawnLogs(dir: string): string {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .map((f) => `${f}:\n${readFileSync(join(dir, f), 'utf8').split('\n').slice(-15).join('\n')}`)
    .join('\n');
}

/** One command on a short-lived connection that never retries. */
async function once<T>(port: number, run: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await run(r);
  } finally {
    r.disconnect();
  }
}

const info = (port: number, section: string) => once(port, (r) => r.info(section)).catch(() => '');
const sentinelCall = (port: number, args: string[]) => once(port, (r) => r.call('SENTINEL', ...args) as Promise<string[]>);

async function waitForPing(port: number): Promise<void> {
  await waitFor(async () => (await once(port, (r) => r.ping()).catch(() => '')) === 'PONG', 10_000, `redis-server on ${port} did not answer`);
}

/**
 * Polls `probe` every 100 ms (a probe that throws: not yet), or throws `what` after `timeoutMs`. Not fixtures' waitFor:
 * this file imports nothing of the workspace's, so that bench/failover-sentinel.mjs runs it as it is (Node strips the types).
 */
async function waitFor(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > until) throw new Error(what);
    await sleep(100);
  }
}
