import type { PrismaClient } from '@tollgate/db';
import { TEST_REDIS_URL } from './env';
import { createServiceKey, createTenant, createTenantKey, publishRules } from './fixtures';

/** An endpoint policy of one per-minute limit. */
export interface MinutePolicy {
  name: string;
  method: string;
  pattern: string;
  scope?: 'tenant' | 'subject' | 'ip';
  limit: number;
}

/** What a client would like to be decided as something else: per client address, and per user (2 a minute each). */
export const SPOOFABLE_POLICIES: readonly MinutePolicy[] = [
  { name: 'expensive', method: 'POST', pattern: '/v1/expensive', scope: 'ip', limit: 2 },
  { name: 'me', method: 'GET', pattern: '/v1/me', scope: 'subject', limit: 2 },
];

/**
 * What a gateway's forward-auth needs of Tollgate: a tenant (1,000 a minute) with `policies` in its plan, the key its
 * clients send, the gateway's service key, and the rule set published (`version`, for the API to be waited on).
 */
export async function createGatewayTenant(prisma: PrismaClient, policies: readonly MinutePolicy[]) {
  const fixture = await createTenant(prisma, [{ name: 'minute', windowS: 60, limit: 1000 }]);
  for (const { name, method, pattern, scope, limit } of policies) {
    await prisma.endpointPolicy.create({ data: { planId: fixture.plan.id, name, method, pattern, scope, limits: { create: [{ name: 'minute', windowS: 60, limit }] } } });
  }
  const tenantKey = (await createTenantKey(prisma, fixture.tenant.id)).key;
  const gatewayKey = await createServiceKey(prisma);
  const { version } = await publishRules(prisma, TEST_REDIS_URL);
  return { fixture, tenantKey, gatewayKey, version };
}
