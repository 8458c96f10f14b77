import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startApi, type TestApi } from './api';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './env';
import { createServiceKey, createUser } from './fixtures';
import { ownStores } from './stack';

export interface OperatorApi {
  prisma: PrismaClient;
  api: TestApi;
  /** An operator's session token. */
  session: string;
  /** That operator's e-mail (as audit rows name it: `user:<email>`). */
  operatorEmail: string;
  /** A session token of a new user: another operator, or a user of `tenantId`. */
  signIn(role?: 'operator' | 'tenant', tenantId?: string): Promise<string>;
  /** The database and Redis the API and `prisma` use: the test's, or the file's own (`ownStores`). */
  databaseUrl: string;
  redisUrl: string;
}

export interface OperatorApiOptions {
  /** A database and Redis database of the file's own (`ownStores(name, redisOffset)`), for tests that need them alone. */
  ownStores?: [name: string, redisOffset: number];
  /** More of the API's environment, known only once something it needs has started (a proxy in front of Postgres). */
  startEnv?: () => Promise<Record<string, string>>;
}

/**
 * For a describe block of API tests: the test database, an API in this process and a signed-in operator,
 * set up before the block's tests and closed after them. The fields are there once `beforeAll` has run.
 */
export function useOperatorApi(env: Record<string, string> = {}, options: OperatorApiOptions = {}): OperatorApi {
  const ctx = {} as OperatorApi;
  const login = async (account: { email: string; password: string }) => await ctx.api.login(account);
  ctx.signIn = async (role = 'operator', tenantId) => login(await createUser(ctx.prisma, role, tenantId));
  beforeAll(async () => {
    const own = options.ownStores ? await ownStores(...options.ownStores) : undefined;
    ctx.databaseUrl = own?.databaseUrl ?? TEST_DATABASE_URL;
    ctx.redisUrl = own?.redisUrl ?? TEST_REDIS_URL;
    ctx.prisma = createPrismaClient(ctx.databaseUrl, { poolSize: 2 });
    const started = (await options.startEnv?.()) ?? {};
    ctx.api = await startApi({ ...(own ? { DATABASE_URL: own.databaseUrl, REDIS_URL: own.redisUrl } : {}), ...env, ...started });
    const account = await createUser(ctx.prisma, 'operator');
    ctx.operatorEmail = account.email;
    ctx.session = await login(account);
  });
  afterAll(async () => {
    await ctx.api?.close();
    await ctx.prisma?.$disconnect();
  });
  return ctx;
}

export interface CheckApi extends OperatorApi {
  /** A client of the API's Redis, to read back what decisions wrote. */
  redis: Redis;
  /** A service key: the token of /v1/check and its kin. */
  serviceKey: string;
  /** POST /v1/check with `serviceKey`. */
  check(body: Record<string, unknown>): ReturnType<TestApi['request']>;
}

/** `useOperatorApi`, and for tests of decisions a service key and a Redis client (closed after the block). */
export function useCheckApi(env: Record<string, string> = {}, options: OperatorApiOptions = {}): CheckApi {
  const ctx = useOperatorApi(env, options) as CheckApi;
  ctx.check = (body) => ctx.api.request('POST', '/v1/check', { token: ctx.serviceKey, body });
  beforeAll(async () => {
    ctx.redis = new Redis(ctx.redisUrl);
    ctx.serviceKey = await createServiceKey(ctx.prisma);
  });
  afterAll(() => ctx.redis?.disconnect());
  return ctx;
}
