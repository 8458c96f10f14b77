import type { PrismaClient } from '@tollgate/db';
import { waitFor } from './fixtures';

/** The delivery of an event to an endpoint, with its attempts (the delivery log) in order. */
export const deliveryOf = (prisma: PrismaClient, eventId: string, endpointId: string) =>
  prisma.webhookDelivery.findFirstOrThrow({ where: { eventId, endpointId }, include: { attemptLog: { orderBy: { attempt: 'asc' } } } });

/**
 * Waits until `n` attempts of the delivery have an outcome, and answers it. An attempt is logged when a worker claims
 * it, before it is sent, and its outcome (and the delivery's move) written once its answer is in.
 */
export async function afterAttempts(prisma: PrismaClient, eventId: string, endpointId: string, n: number, timeoutMs = 10_000) {
  await waitFor(async () => (await deliveryOf(prisma, eventId, endpointId)).attemptLog.filter((a) => a.outcome !== null).length >= n, timeoutMs);
  return deliveryOf(prisma, eventId, endpointId);
}
