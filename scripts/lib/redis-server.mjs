// A redis-server of the caller's own, on a free port, keeping nothing on disk: what `npm test` and the test
// harness run against, so that a test run never reads, writes or flushes a Redis it did not start.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { livePid } from './bootstrap.mjs';

/** Whether Debian's (or any) `redis-server` is on the PATH. */
export function hasRedisServer() {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A port nothing listens on right now (the kernel's pick). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Starts `redis-server` as a child of this process on a free port of 127.0.0.1 (or `port`: a test that restarts
 * its server empty where its clients reconnect), its working folder a new temporary one (`dir`, which the server
 * reports as `CONFIG GET dir`: how a test knows the server is the run's own). `stop()` ends it and removes the
 * folder; so does this process's exit. `npm start` gives a folder of its own instead (`dir`, kept: redis.log), and
 * `detached` puts the server in a process group of its own, so that a Ctrl-C in the terminal reaches the caller,
 * which stops it after the apps.
 */
/** Stops (SIGTERM) the server a killed run left in `dir` (a kept folder), and waits until it is gone. */
export async function stopLeftoverRedis(dir) {
  const pid = livePid(join(dir, 'redis.pid'), 'redis-server');
  if (!pid) return false;
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < 10_000 && livePid(join(dir, 'redis.pid'), 'redis-server'); waited += 100) await new Promise((r) => setTimeout(r, 100));
  return true;
}

export async function startRedisServer(name = 'tollgate-test', port = undefined, { dir: ownDir, detached = false } = {}) {
  if (ownDir) mkdirSync(ownDir, { recursive: true });
  const dir = ownDir ? realpathSync(ownDir) : realpathSync(mkdtempSync(join(tmpdir(), `${name}-redis-`)));
  port ??= await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', join(dir, 'redis.log')],
    { stdio: 'ignore', detached },
  );
  // In a kept folder, its pid: the next start stops a server a killed run left behind (stopLeftover).
  if (ownDir && child.pid) writeFileSync(join(dir, 'redis.pid'), `${child.pid}\n`);
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    if (!ownDir) rmSync(dir, { recursive: true, force: true });
    else rmSync(join(dir, 'redis.pid'), { force: true });
  };
  process.once('exit', stop);
  const failed = new Promise((_, reject) => child.once('error', reject));
  await Promise.race([waitForPort(port), failed]).catch((err) => {
    stop();
    throw new Error(`redis-server did not start on ${port}: ${err instanceof Error ? err.message : String(err)}`);
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(stop());
        child.once('exit', () => resolve(stop()));
        child.kill('SIGTERM');
      }),
  };
}

async function waitForPort(port, timeoutMs = 10_000) {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    const up = await new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.write('PING\r\n');
      });
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing answered PING within ${timeoutMs} ms`);
}
