import { randomInt } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { CLIENT_ADDRESS_HEADER, signClientAddress } from '@tollgate/domain';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../../../../../test/support/env';
import { createUser, waitFor } from '../../../../../test/support/fixtures';
import { startApi, type TestApi } from '../../../../../test/support/api';
import { proxiedRedis, type TcpProxy } from '../../../../../test/support/tcp-proxy';

const SECRET = 'the-secret-the-dashboard-and-the-api-share-in-this-test';
const anAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

// The API reaches Redis through a TCP proxy the test cuts: Redis is gone for this API node only.
describe('sign-in throttling while Redis is down', () => {
  let prisma: PrismaClient;
  let proxy: TcpProxy;
  let api: TestApi;
  const warn = vi.spyOn(Logger.prototype, 'warn');
  const info = vi.spyOn(Logger.prototype, 'log');
  const logged = (spy: typeof warn, text: string) => spy.mock.calls.filter(([message]) => String(message).includes(text)).length;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    let redisUrl: string;
    ({ proxy, redisUrl } = await proxiedRedis(TEST_REDIS_URL));
    api = await startApi({ REDIS_URL: redisUrl, CLIENT_ADDRESS_SECRET: SECRET, LOGIN_FAILURES_BEFORE_DELAY: '3', LOGIN_ATTEMPTS_PER_MINUTE_PER_ADDRESS: '5' });
  });
  afterAll(async () => {
    await api?.close();
    await proxy?.close();
    await prisma.$disconnect();
    warn.mockRestore();
    info.mockRestore();
  });

  const signIn = async (account: { email: string; password: string }, address: string) => {
    const r = await api.request('POST', '/v1/auth/login', { body: account, headers: { [CLIENT_ADDRESS_HEADER]: await signClientAddress(SECRET, address) } });
    return { status: r.status, retryAfter: r.headers.get('retry-after') };
  };

  it('goes on throttling in the node’s memory, says so once, and counts on Redis again once it is back', async () => {
    const account = await createUser(prisma);
    expect((await signIn(account, anAddress())).status).toBe(200);
    await proxy.cut();

    // Attempts in a row per account and address: the third failure makes the next attempt wait.
    const address = anAddress();
    const failures = [];
    for (let i = 0; i < 3; i += 1) failures.push(await signIn({ ...account, password: 'wrong' }, address));
    expect(failures.map((r) => [r.status, r.retryAfter])).toEqual([[401, null], [401, null], [401, '1']]);
    // Attempts per address across accounts: 5 a minute, the sixth is refused.
    const sprayer = anAddress();
    const sprayed = [];
    for (let i = 0; i < 6; i += 1) sprayed.push((await signIn({ email: `nobody-${i}@test.local`, password: 'spray' }, sprayer)).status);
    expect(sprayed).toEqual([401, 401, 401, 401, 401, 429]);
    // The owner elsewhere still signs in.
    expect((await signIn(account, anAddress())).status).toBe(200);
    expect(logged(warn, "counted in this node's memory")).toBe(1);

    await proxy.restore();
    await waitFor(async () => (await signIn(account, anAddress())).status === 200 && logged(info, 'counted on Redis again') === 1, 10_000, 100);
    expect(logged(warn, "counted in this node's memory")).toBe(1);
  });
});
