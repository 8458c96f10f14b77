import { tenantKeyPrefix } from '@tollgate/limiter';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { TEST_REDIS_URL } from '../../../../../test/support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, publishRules } from '../../../../../test/support/fixtures';

// FIXED_WINDOW_EARLIER_COUNTERS (docs/adr/0024-every-key-the-limit-script-touches-is-declared.md): by default a fixed
// window also reads the counter earlier versions kept (`…:<window start ms>`) and, once an earlier node made one in
// the window, keeps it in step; set to false, a check's fixed windows keep their own key only.
describe.each([
  { setting: undefined, label: 'unset (true)', counters: true },
  { setting: 'false', label: 'false', counters: false },
])('POST /v1/check with FIXED_WINDOW_EARLIER_COUNTERS $label', ({ setting, counters }) => {
  const ctx = useOperatorApi(setting === undefined ? {} : { FIXED_WINDOW_EARLIER_COUNTERS: setting });
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true });
  afterAll(() => redis.disconnect());
  let key: string;
  beforeAll(async () => {
    key = await createServiceKey(ctx.prisma);
  });

  it(counters ? 'keeps each fixed window\'s own key, and the earlier versions\' counter in step once an earlier node made it' : 'keeps each fixed window\'s own key only', async () => {
    // The earlier counter is read when the node's clock names the window the script decides in: not at a minute's edge.
    await awayFromMinuteBoundary();
    const { tenant } = await createTenant(ctx.prisma);
    const ruleSet = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(ruleSet.version);
    const check = (subject: string) => ctx.api.request('POST', '/v1/check', { token: key, body: { tenant: tenant.slug, endpoint: 'GET /v1/items', subject, cost: 3 } });
    expect((await check('alice')).body).toMatchObject({ allowed: true, limits: [{ name: 'minute', remaining: 7 }, { name: 'daily', remaining: 997 }] });
    const prefix = tenantKeyPrefix(tenant.id);
    // The rule's own key ends with its subject hash (`-`: the tenant as a whole), the earlier counter with its window's start.
    const own = (await redis.keys(`${prefix}fw:*`)).filter((k) => k.endsWith(':-'));
    expect(own).toHaveLength(2);
    // No earlier node ran: no earlier counter was made.
    expect(await redis.keys(`${prefix}fw:*:-:*`)).toEqual([]);

    // An earlier node charges the minute's window 2 (its INCRBY makes the counter).
    const minuteKey = own.find((k) => k.includes(':minute:'))!;
    const counter = `${minuteKey}:${Date.now() - (Date.now() % 60_000)}`;
    await redis.incrby(counter, 2);
    await redis.pexpire(counter, 60_000);
    const next = await check('alice');
    expect(next.body).toMatchObject({ allowed: true, limits: [{ name: 'minute', remaining: counters ? 2 : 4 }, { name: 'daily', remaining: 994 }] });
    expect(await redis.get(counter)).toBe(counters ? '8' : '2');
  });
});
