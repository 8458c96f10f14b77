import { LeasedLimiter, TollgateClient } from '@tollgate/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnforcementServer, type EnforcementServer } from '../support/enforcement-server';

// The local limiter over HTTP leases (`/v1/check/lease`, `/v1/check/refund`), against a real server answering
// the enforcement contract with the limiter's in-memory engine.
describe('LeasedLimiter with a TollgateClient', () => {
  let server: EnforcementServer;
  let client: TollgateClient;
  const target = (subject: string) => ({ tenant: 'acme', endpoint: 'POST /v1/messages', subject });
  /** What would remain after one more unit (a peek counts its own cost when it fits). */
  const remaining = async (subject: string) => (await client.peek({ ...target(subject), cost: 1 })).limits[0]?.remaining;

  beforeAll(async () => {
    server = await startEnforcementServer({ tenants: { acme: [{ name: 'minute', algorithm: 'fixed_window', limit: 100, windowMs: 3_600_000 }] } });
    client = new TollgateClient({ baseUrl: server.url, serviceKey: server.serviceKey });
  });
  afterAll(() => server.close());

  it('three nodes, 600 concurrent decisions against a limit of 100: exactly 100 admitted, in a few leases', async () => {
    const nodes = [0, 1, 2].map(() => new LeasedLimiter({ client, leaseSize: 15, sweepEveryMs: 0 }));
    const leasesBefore = server.calls['/v1/check/lease'] ?? 0;
    const decisions = await Promise.all(Array.from({ length: 600 }, (_, i) => nodes[i % 3]!.take(target('crowd'))));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
    const denied = decisions.find((d) => !d.allowed);
    expect(denied?.retryAfterMs).toBeGreaterThan(0);
    expect((server.calls['/v1/check/lease'] ?? 0) - leasesBefore).toBeLessThan(30);
    await Promise.all(nodes.map((n) => n.close()));
    expect(await remaining('crowd')).toBe(0);
  });

  it('refunds unspent units on close', async () => {
    const node = new LeasedLimiter({ client, leaseSize: 20, sweepEveryMs: 0 });
    expect(await node.take(target('solo'), 3)).toMatchObject({ allowed: true });
    expect(await remaining('solo')).toBe(79);
    await node.close();
    expect(await remaining('solo')).toBe(96);
    expect(node.stats()).toMatchObject({ granted: 20, spent: 3, refunded: 17 });
  });
});
