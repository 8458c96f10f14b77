import { tenantKeyPrefix } from '@tollgate/limiter';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { TEST_REDIS_URL } from '../../../../../test/support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, publishRules } from '../../../../../test/support/fixtures';

// FIXED_WINDOW_EARLIER_COUNTERS (docs/adr/0024-every-key-the-limit-script-touches-is-declared.md): by default a fixed
// window also keeps the counter earlier versions kept (`…:<window start ms>`); set to false, a check's fixed windows
// keep their own key only.
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

  it(counters ? 'keeps each fixed window\'s own key and the earlier versions\' counter' : 'keeps each fixed window\'s own key only', async () => {
    // The earlier counter is written when the node's clock names the window the script decides in: not at a minute's edge.
    await awayFromMinuteBoundary();
    const { tenant } = await createTenant(ctx.prisma);
    const ruleSet = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(ruleSet.version);
    const r = await ctx.api.request('POST', '/v1/check', { token: key, body: { tenant: tenant.slug, endpoint: 'GET /v1/items', subject: 'alice', cost: 3 } });
    expect(r.body).toMatchObject({ allowed: true, limits: [{ name: 'minute', remaining: 7 }, { name: 'daily', remaining: 997 }] });
    const prefix = tenantKeyPrefix(tenant.id);
    const windows = await redis.keys(`${prefix}fw:*`);
    // The rule's own key ends with its subject hash (`-`: the tenant as a whole), the earlier counter with its window's start.
    const own = windows.filter((k) => k.endsWith(':-'));
    const earlier = windows.filter((k) => /:-:\d+$/.test(k));
    expect(own).toHaveLength(2);
    expect(earlier).toHaveLength(counters ? 2 : 0);
    expect(windows).toHaveLength(own.length + earlier.length);
    for (const counter of earlier) {
      expect(own).toContain(counter.slice(0, counter.lastIndexOf(':')));
      expect(await redis.get(counter)).toBe('3');
    }
  });
});
