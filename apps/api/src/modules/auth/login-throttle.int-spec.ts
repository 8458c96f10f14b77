import { randomInt } from 'node:crypto';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { CLIENT_ADDRESS_HEADER, CLIENT_ADDRESS_MAX_AGE_MS, signClientAddress } from '@tollgate/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../../../../../test/support/env';
import { createUser, waitFor } from '../../../../../test/support/fixtures';
import { startApi, type TestApi } from '../../../../../test/support/api';

const SECRET = 'the-secret-the-dashboard-and-the-api-share-in-this-test';
/** An address of its own for each test run (Redis keeps the counts of earlier runs for a while). */
const anAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

type Account = { email: string; password: string };

describe('sign-in throttling: per account and address, growing delays, per address across accounts', () => {
  let prisma: PrismaClient;
  let api: TestApi;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    api = await startApi({ CLIENT_ADDRESS_SECRET: SECRET, LOGIN_FAILURES_BEFORE_DELAY: '3', LOGIN_ATTEMPTS_PER_MINUTE_PER_ADDRESS: '1000000' });
  });
  afterAll(async () => {
    await api.close();
    await prisma.$disconnect();
  });

  /** A sign-in as the dashboard makes it for a browser at `address` (signed), or as a direct client (none). */
  const signIn = async (account: Account, address?: string, headers: Record<string, string> = {}) => {
    const signed: Record<string, string> = address === undefined ? {} : { [CLIENT_ADDRESS_HEADER]: await signClientAddress(SECRET, address) };
    const r = await api.request('POST', '/v1/auth/login', { body: account, headers: { ...signed, ...headers } });
    return { status: r.status, retryAfter: r.headers.get('retry-after'), body: r.body };
  };
  const wrong = (account: Account): Account => ({ email: account.email, password: `${account.password}-wrong` });
  /** The first answer that is not a 429 (the wait is over), polling every 100 ms. */
  const whenAllowed = async (account: Account, address: string) => {
    let answer: Awaited<ReturnType<typeof signIn>> | undefined;
    await waitFor(async () => (answer = await signIn(account, address)).status !== 429, 10_000, 100);
    return answer!; // waitFor returned: it was set
  };
  /** Fails from `address` until the back-off answers 429. */
  const hammer = async (account: Account, address?: string, headers: Record<string, string> = {}) => {
    for (let i = 0; i < 10; i += 1) if ((await signIn(wrong(account), address, headers)).status === 429) return;
    throw new Error('never throttled');
  };

  it('never delays the owner signing in from their address, however often others fail on the account', async () => {
    const owner = await createUser(prisma);
    const ownerAddress = anAddress();
    for (let i = 0; i < 5; i += 1) await hammer(owner, anAddress());
    await hammer(owner); // and the API's own peer, unsigned
    expect((await signIn(owner, ownerAddress)).status).toBe(200);
  });

  it('makes repeated failures from one address for one account wait longer each time, and forgets them after a success', async () => {
    const account = await createUser(prisma);
    const address = anAddress();
    const failed = [];
    for (let i = 0; i < 3; i += 1) failed.push(await signIn(wrong(account), address));
    expect(failed.map((r) => [r.status, r.retryAfter])).toEqual([[401, null], [401, null], [401, '1']]);

    const delays: (string | null)[] = [];
    for (let i = 0; i < 2; i += 1) {
      const next = await whenAllowed(wrong(account), address);
      expect(next.status).toBe(401);
      delays.push(next.retryAfter);
    }
    expect(delays).toEqual(['2', '4']);

    // Even the right password waits: a delay that a correct guess could skip would tell the guess was right.
    const early = await signIn(account, address);
    expect([early.status, early.body.error.code]).toEqual([429, 'rate_limited']);
    expect(Number(early.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(early.retryAfter)).toBeLessThanOrEqual(4);
    expect(early.body.error.message).toMatch(/try again in [1-4] seconds?/);

    expect((await whenAllowed(account, address)).status).toBe(200);
    expect((await signIn(wrong(account), address)).retryAfter).toBeNull(); // a success starts the count over
  });

  it('keeps a forged X-Forwarded-For in the sender’s own bucket, and refuses a signed address it cannot verify', async () => {
    const owner = await createUser(prisma);
    const ownerAddress = anAddress();
    // An attacker that claims to be the owner's address (or another one each time) is counted as itself: its
    // third failure in a row makes it wait, which it would not if the header had spread them over buckets.
    const forged = [];
    for (let i = 0; i < 3; i += 1) forged.push(await signIn(wrong(owner), undefined, { 'x-forwarded-for': i % 2 === 0 ? ownerAddress : anAddress() }));
    expect(forged.map((r) => [r.status, r.retryAfter])).toEqual([[401, null], [401, null], [401, '1']]);
    await hammer(owner, undefined, { 'x-forwarded-for': ownerAddress });
    expect((await signIn(owner, ownerAddress)).status).toBe(200);

    const stale = await signClientAddress(SECRET, ownerAddress, Date.now() - CLIENT_ADDRESS_MAX_AGE_MS - 5_000);
    const otherSecret = await signClientAddress(`${SECRET}-not-this-one`, ownerAddress);
    for (const value of [stale, otherSecret, ownerAddress, `v1;${ownerAddress};${Date.now()};${'0'.repeat(64)}`]) {
      const r = await signIn(owner, undefined, { [CLIENT_ADDRESS_HEADER]: value });
      expect([r.status, r.body.error.code]).toEqual([403, 'forbidden']);
    }
  });
});

describe('sign-in throttling: per client address across accounts', () => {
  let prisma: PrismaClient;
  let api: TestApi;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    api = await startApi({ CLIENT_ADDRESS_SECRET: SECRET, LOGIN_ATTEMPTS_PER_MINUTE_PER_ADDRESS: '4' });
  });
  afterAll(async () => {
    await api.close();
    await prisma.$disconnect();
  });

  it('answers 429 with Retry-After to an address that tries many accounts, and only to that address', async () => {
    const sprayer = anAddress();
    const signIn = async (account: Account, address: string) =>
      api.request('POST', '/v1/auth/login', { body: account, headers: { [CLIENT_ADDRESS_HEADER]: await signClientAddress(SECRET, address) } });
    for (let i = 0; i < 4; i += 1) {
      const victim = await createUser(prisma);
      expect((await signIn({ email: victim.email, password: 'password-spray' }, sprayer)).status).toBe(401);
    }
    const limited = await signIn(await createUser(prisma), sprayer);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await signIn(await createUser(prisma), anAddress())).status).toBe(200);
  });

  it('refuses every signed address when the API has no secret to check it with', async () => {
    const bare = await startApi();
    try {
      const r = await bare.request('POST', '/v1/auth/login', { body: await createUser(prisma), headers: { [CLIENT_ADDRESS_HEADER]: await signClientAddress(SECRET, anAddress()) } });
      expect([r.status, r.body.error.code]).toEqual([403, 'forbidden']);
    } finally {
      await bare.close();
    }
  });
});
