import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { type CheckInput, TollgateClient } from '@tollgate/sdk';
import { afterAll, beforeAll } from 'vitest';
import { startApi, type TestApi } from './api';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './env';
import { createServiceKey, createTenant, publishRules } from './fixtures';

export interface SdkApi {
  /** Two tenants' slugs, each on a plan of 3 checks a minute. */
  tenant: string;
  other: string;
  /** The SDK client a service makes with its service key, against the API: each check it is asked is kept in `checks`. */
  client: Pick<TollgateClient, 'check'>;
  checks: CheckInput[];
}

/**
 * For a describe block of SDK integration tests (the NestJS guard, the Fastify plugin) against a real API in this
 * process: two tenants, a service key and its client, the rule set in force; set up before the block's tests (a
 * `beforeAll` registered after this call sees them) and closed after them.
 */
export function useSdkApi(): SdkApi {
  const ctx = { checks: [] as CheckInput[] } as SdkApi;
  let prisma: PrismaClient | undefined;
  let api: TestApi | undefined;
  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    api = await startApi();
    ({ tenant: { slug: ctx.tenant } } = await createTenant(prisma, [{ name: 'minute', windowS: 60, limit: 3 }]));
    ({ tenant: { slug: ctx.other } } = await createTenant(prisma, [{ name: 'minute', windowS: 60, limit: 3 }]));
    const serviceKey = await createServiceKey(prisma);
    const ruleSet = await publishRules(prisma, TEST_REDIS_URL);
    await api.waitForRuleVersion(ruleSet.version);
    const real = new TollgateClient({ baseUrl: api.url, serviceKey });
    ctx.client = { check: (input) => (ctx.checks.push(input), real.check(input)) };
  });
  afterAll(async () => {
    await api?.close();
    await prisma?.$disconnect();
  });
  return ctx;
}

/** A request header as the SDK's tenant and subject resolvers read it: its one value, or nothing. */
export const header = (name: string) => (req: { headers: Record<string, string | string[] | undefined> }) => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
};
