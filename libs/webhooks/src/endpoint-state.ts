import type { Prisma } from '@tollgate/db';

type Tx = Prisma.TransactionClient;

/**
 * Disables an endpoint and cancels what was still waiting to be delivered to it, in the caller's transaction. Used by
 * its owner (the API) and by the delivery (a 410 Gone, 5 days of failing). Answers whether it was enabled.
 */
export async function disableEndpoint(tx: Tx, endpointId: string, reason: string, now: Date): Promise<boolean> {
  const changed = await tx.webhookEndpoint.updateMany({ where: { id: endpointId, enabled: true }, data: { enabled: false, disabledReason: reason, disabledAt: now } });
  await tx.webhookDelivery.updateMany({ where: { endpointId, status: 'pending' }, data: { status: 'cancelled', nextAttemptAt: null } });
  return changed.count > 0;
}
