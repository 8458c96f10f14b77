import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll } from 'vitest';
import { startApi, type TestApi } from './api';
import { TEST_DATABASE_URL } from './env';
import { createUser } from './fixtures';

export interface OperatorApi {
  prisma: PrismaClient;
  api: TestApi;
  /** An operator's session token. */
  session: string;
  /** That operator's e-mail (as audit rows name it: `user:<email>`). */
  operatorEmail: string;
  /** A session token of a new user: another operator, or a user of `tenantId`. */
  signIn(role?: 'operator' | 'tenant', tenantId?: string): Promise<string>;
}

/**
 * For a describe block of API tests: the test database, an API in this process and a signed-in operator,
 * set up before the block's tests and closed after them. The fields are there once `beforeAll` has run.
 */
export function useOperatorApi(env: Record<string, string> = {}): OperatorApi {
  const ctx = {} as OperatorApi;
  const login = async (account: { email: string; password: string }) => await ctx.api.login(account);
  ctx.signIn = async (role = 'operator', tenantId) => login(await createUser(ctx.prisma, role, tenantId));
  beforeAll(async () => {
    ctx.prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    ctx.api = await startApi(env);
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
