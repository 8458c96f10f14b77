import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test/support/stack';
import type { LimitRule } from '../contract';
import { preparingEachCall } from '../prepared-rules';
import { RedisEngine } from './redis-engine';

// No script call acts after the client gave up on it (docs/adr/0021-one-request-one-decision.md): when the client's
// command timeout (ioredis `commandTimeout`) is shorter than the decision deadline, the client rejects the call and
// drops its reply, so a late run could not be undone. The call's expiry on Redis's clock is then the command
// timeout, not the deadline: a server stopped (SIGSTOP) while the call sits in its socket runs it on resuming, after
// the timeout, and it changes nothing.
const DAY = 86_400_000;
const rules: LimitRule[] = [{ name: 'day', algorithm: 'fixed_window', limit: 100, windowMs: DAY }];
const COMMAND_TIMEOUT_MS = 300;
const DEADLINE_MS = 5_000;

describe('RedisEngine with a command timeout shorter than its deadline', () => {
  let server: ChildProcess;
  let dir: string;
  let client: Redis;

  beforeAll(async () => {
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'tollgate-timeout-'));
    server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    client = new Redis({ port, host: '127.0.0.1', commandTimeout: COMMAND_TIMEOUT_MS, maxRetriesPerRequest: 1 });
    client.on('error', () => undefined);
    for (let i = 0; i < 100 && (await client.ping().catch(() => '')) !== 'PONG'; i += 1) await new Promise((r) => setTimeout(r, 50));
  });
  afterAll(async () => {
    client?.disconnect();
    if (server && server.exitCode === null) {
      server.kill('SIGCONT');
      server.kill('SIGTERM');
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** How many EVALSHA calls the server has run. */
  const scriptCalls = async () => Number(/^cmdstat_evalsha:calls=(\d+)/m.exec(await client.info('commandstats'))?.[1] ?? 0);

  it('gives a call the command timeout as its expiry: run after the client gave up on it, it charges nothing', async () => {
    const engine = preparingEachCall(new RedisEngine(client, { deadlineMs: DEADLINE_MS }));
    const tenantId = `timeout-${randomUUID()}`;
    // One decision in time: Redis's clock is known, so the next call carries an expiry.
    expect(await engine.consume({ tenantId, rules, cost: 1 })).toMatchObject({ allowed: true, rules: [{ remaining: 99 }] });

    const before = await scriptCalls();
    server.kill('SIGSTOP');
    let resumed = false;
    try {
      const started = performance.now();
      await expect(engine.consume({ tenantId, rules, cost: 5 })).rejects.toThrow(/timed out/i);
      // The client gave up at its command timeout, long before the deadline.
      expect(performance.now() - started).toBeLessThan(DEADLINE_MS);
      // Past the command timeout, within the deadline: the call still waits in the stopped server's socket.
      await new Promise((r) => setTimeout(r, COMMAND_TIMEOUT_MS * 2));
      server.kill('SIGCONT');
      resumed = true;
    } finally {
      if (!resumed) server.kill('SIGCONT');
    }

    // The server ran the call on resuming (one script call more), after its expiry: nothing charged.
    expect(await scriptCalls()).toBe(before + 1);
    // (A peek says what a consume of its cost would leave: 99 - 1, not 99 - 5 - 1.)
    expect(await engine.peek({ tenantId, rules, cost: 1 })).toMatchObject({ allowed: true, rules: [{ remaining: 98 }] });
  });
});
