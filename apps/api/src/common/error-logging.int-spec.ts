import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { latestRuleSet } from '@tollgate/rule-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../../../../test/support/api';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../../../../test/support/env';
import { createServiceKey, createTenant, createTenantKey, publishRules } from '../../../../test/support/fixtures';

const SHA256_HEX = /[0-9a-f]{64}/i;

/**
 * The error a rule set version's write raised when the rule set could not be stored (a tenant slugged `constructor`
 * did that): Prisma's validation error, whose message prints every argument of the call — the whole compiled
 * rule set with every key hash.
 */
async function ruleSetWriteError(prisma: PrismaClient): Promise<Error> {
  const ruleSet = await latestRuleSet(prisma);
  try {
    await prisma.ruleSetVersion.create({ data: { version: 0, compiled: { ...ruleSet, diff: { before: Object } } as never, diff: [], author: 'test' } });
  } catch (err) {
    return err as Error;
  }
  throw new Error('the write was expected to fail');
}

describe('what a 5xx logs', () => {
  let prisma: PrismaClient;
  let api: TestApi;
  let lines: string[];
  let cause: Error;
  let hashes: string[];
  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    const { tenant } = await createTenant(prisma);
    await createServiceKey(prisma);
    await createTenantKey(prisma, tenant.id);
    const ruleSet = await publishRules(prisma, TEST_REDIS_URL);
    hashes = [...ruleSet.serviceKeys, ...ruleSet.tenantKeys].map((k) => k.hash);
    cause = await ruleSetWriteError(prisma);
    lines = [];
    api = await startApi(
      { LOG_LEVEL: 'info' },
      {
        logDestination: { write: (line: string) => void lines.push(line) },
        beforeListen: (app) => {
          // A route of Nest's instance that fails the way the rule set write failed: through the global error filter.
          app.getHttpAdapter().getInstance().get('/test/rule-set-write', () => Promise.reject(cause));
        },
      },
    );
  });
  afterAll(async () => {
    await api?.close();
    await prisma?.$disconnect();
  });

  it('answers internal with the envelope, and logs the code, the message and a bounded cause: no key hash, no rule set', async () => {
    // The cause does carry the rule set: what the log must not repeat.
    expect(cause.message).toContain(hashes[0]);
    expect(cause.message).toContain('serviceKeys');

    const r = await api.request('GET', '/test/rule-set-write');
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ error: { code: 'internal', message: 'internal error' } });

    const logged = lines.join('');
    for (const hash of hashes) expect(logged).not.toContain(hash);
    expect(logged).not.toMatch(SHA256_HEX);
    expect(logged).not.toContain('serviceKeys');
    expect(logged).not.toContain('tenantKeys');
    const errors = lines.map((l) => JSON.parse(l) as { level: number; code?: string; msg?: string; cause?: { type: string; message: string } }).filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'internal', msg: 'internal error', cause: { type: 'PrismaClientValidationError' } });
    expect(errors[0]!.cause!.message.length).toBeLessThanOrEqual(201);
  });
});
