import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { isInitialised, runAsUser, startEmbeddedPostgres } from '../../scripts/lib/embedded-postgres.mjs';
import { freePort, startRedisServer } from '../../scripts/lib/redis-server.mjs';

// `npm start` without DATABASE_URL and without a PostgreSQL on 5432 runs one of its own from the npm registry, its
// data in .tollgate/postgres; `npm test` one in a temporary folder. Here: one in a temporary folder on a free port,
// never the PostgreSQL on 5432 nor the Redis on 6379.
const folder = mkdtempSync(join(tmpdir(), 'tollgate-embedded-pg-'));
const dir = join(folder, 'data');
chmodSync(folder, 0o755); // as root, the server's own user must reach the folder (a checkout's is usually 755)
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function query(url: string, sql: string) {
  const client = new pg.Client({ connectionString: `${url}/postgres` });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('the embedded PostgreSQL', () => {
  it('initialises an empty folder, serves, stops, and finds its data again after a restart', async () => {
    const first = await startEmbeddedPostgres({ dir, port: await freePort() });
    try {
      expect(isInitialised(dir)).toBe(true);
      const user = runAsUser();
      // As root it runs as an unprivileged user, who owns the data.
      if (user) expect(statSync(dir).uid).toBe(user.uid);
      expect(await query(first.url, 'select setting from pg_settings where name = \'listen_addresses\'')).toEqual([{ setting: '127.0.0.1' }]);
      await query(first.url, 'create table kept (note text); insert into kept values (\'still here\')');
    } finally {
      await first.stop();
    }
    await expect(query(first.url, 'select 1')).rejects.toThrow();

    const second = await startEmbeddedPostgres({ dir, port: await freePort() });
    try {
      expect(await query(second.url, 'select note from kept')).toEqual([{ note: 'still here' }]);
    } finally {
      await second.stop();
    }
  });

  it('stops a server a killed run left on its folder before starting', async () => {
    const leftover = await startEmbeddedPostgres({ dir, port: await freePort() });
    // No stop(): as if the process that started it had been killed. The next start takes the folder over.
    const next = await startEmbeddedPostgres({ dir, port: await freePort() });
    try {
      await expect(query(leftover.url, 'select 1')).rejects.toThrow();
      expect(await query(next.url, 'select note from kept')).toEqual([{ note: 'still here' }]);
    } finally {
      await next.stop();
      await leftover.stop();
    }
  });
});

describe('npm start\'s own redis-server', () => {
  it('runs in the folder it is given and leaves it in place when stopped', async () => {
    const own = join(folder, 'redis');
    const redis = await startRedisServer('tollgate', undefined, { dir: own, detached: true });
    expect(redis.dir).toBe(own);
    expect(redis.port).not.toBe(6379);
    await redis.stop();
    expect(statSync(join(own, 'redis.log')).isFile()).toBe(true);
  });
});
