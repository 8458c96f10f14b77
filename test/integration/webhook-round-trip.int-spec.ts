import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { claimDueAttempts } from '@tollgate/webhooks';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookRunner } from '../../apps/worker/src/webhooks/webhook-runner';
import { startApi, type TestApi } from '../support/api';
import { createTenant, createUser, waitFor } from '../support/fixtures';
import { ownStores } from '../support/stack';
import { startReceiver } from '../support/webhook-receiver';

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

// The API and the worker's webhook runner as they run apart, on a database and Redis database of this file's own (the
// runner delivers whatever is due there): what the API seals, the worker opens with the key both find in Postgres.
describe('a webhook from the API to a receiver', () => {
  let prisma: PrismaClient;
  let api: TestApi;
  let runner: WebhookRunner;
  let startRunner: () => WebhookRunner;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let session: string;
  let tenantUser: string;

  beforeAll(async () => {
    const stores = await ownStores('webhook_round_trip', 10);
    prisma = createPrismaClient(stores.databaseUrl, { poolSize: 2 });
    api = await startApi({ DATABASE_URL: stores.databaseUrl, REDIS_URL: stores.redisUrl, WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1' });
    session = await api.login(await createUser(prisma, 'operator'));
    const { tenant } = await createTenant(prisma);
    tenantUser = await api.login(await createUser(prisma, 'tenant', tenant.id));
    receiver = await startReceiver();
    startRunner = () =>
      new WebhookRunner({
        prisma,
        settings: { encryptionKeys: '', allowedDestinations: '127.0.0.1', dispatchEveryMs: 100, timeoutMs: 2000, concurrency: 2, lockMs: 5000 },
        log: silent,
      });
    runner = startRunner();
    runner.start();
  });
  afterAll(async () => {
    await runner?.close();
    await receiver?.close();
    await api?.close();
    await prisma?.$disconnect();
  });

  it.each([
    ['the operator', '/v1/admin/webhooks', () => session, ['platform.degraded.firing', 'webhook.test']],
    ["a tenant's user", '/v1/tenant/webhooks', () => tenantUser, ['quota.threshold_crossed']],
  ] as const)('%s creates an endpoint, sends a test event, and the receiver verifies it with the secret shown once', async (_who, base, token, eventTypes) => {
    const created = await api.request('POST', base, { token: token(), body: { url: `${receiver.url}/in`, eventTypes } });
    expect(created.status).toBe(201);
    const { endpoint, secret } = created.body;
    const sent = await api.request('POST', `${base}/${endpoint.id}/test`, { token: token() });
    expect(sent.status).toBe(202);
    const [eventId] = sent.body.eventIds;
    await waitFor(() => receiver.received.some((r) => r.headers['webhook-id'] === eventId), 10_000);
    const request = receiver.received.find((r) => r.headers['webhook-id'] === eventId)!;
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test', data: { endpointId: endpoint.id } });

    const log = async () => (await api.request('GET', `${base}/${endpoint.id}/deliveries`, { token: token() })).body;
    await waitFor(async () => (await log()).items[0]?.status === 'delivered', 10_000);
    expect((await log()).items[0]).toMatchObject({
      eventId,
      eventType: 'webhook.test',
      attempts: 1,
      attemptLog: [{ attempt: 1, outcome: 'delivered', statusCode: 200, error: null, responseBody: 'ok' }],
    });
  });

  it.each([
    ['the operator', '/v1/admin/webhooks', () => session, ['webhook.test']],
    ["a tenant's user", '/v1/tenant/webhooks', () => tenantUser, ['quota.threshold_crossed']],
  ] as const)('%s reads an attempt whose worker stopped after claiming it as outcome unknown, then its retry with the same webhook-id', async (_who, base, token, eventTypes) => {
    await runner.close();
    const created = await api.request('POST', base, { token: token(), body: { url: `${receiver.url}/in`, eventTypes } });
    const { endpoint, secret } = created.body;
    const [eventId] = (await api.request('POST', `${base}/${endpoint.id}/test`, { token: token() })).body.eventIds;
    // A worker that claimed the attempt (logging it before sending) and stopped there; its lease ends at once.
    const now = new Date();
    const claimed = await claimDueAttempts(prisma, now, now, 100);
    expect(claimed.map((c) => [c.event.id, c.attempt])).toEqual([[eventId, 1]]);
    const log = async () => (await api.request('GET', `${base}/${endpoint.id}/deliveries`, { token: token() })).body;
    expect((await log()).items[0]).toMatchObject({ eventId, status: 'pending', attempts: 1, attemptLog: [{ attempt: 1, outcome: 'unknown', statusCode: null, error: null, latencyMs: null }] });

    runner = startRunner();
    runner.start();
    await waitFor(async () => (await log()).items[0]?.status === 'delivered', 10_000);
    expect((await log()).items[0].attemptLog).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'unknown', statusCode: null }),
      expect.objectContaining({ attempt: 2, outcome: 'delivered', statusCode: 200 }),
    ]);
    const request = receiver.received.find((r) => r.headers['webhook-id'] === eventId)!;
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });
  });

  it.each(['/v1/admin/webhooks/{endpointId}/deliveries', '/v1/tenant/webhooks/{endpointId}/deliveries'])("describes an attempt's outcome, unknown included, in the OpenAPI schema of %s", async (path) => {
    const document = (await api.request('GET', '/docs-json')).body as { paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }> };
    const page = document.paths[path]!.get.responses['200']!.content['application/json']!.schema as {
      properties: { items: { items: { properties: { attemptLog: { items: { properties: Record<string, unknown> } } } } } };
    };
    const attempt = page.properties.items.items.properties.attemptLog.items.properties;
    expect(attempt.outcome).toMatchObject({ type: 'string', enum: ['delivered', 'failed', 'unknown'] });
    expect(JSON.stringify(attempt.latencyMs)).toContain('null');
  });
});
