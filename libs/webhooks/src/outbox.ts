import type { PrismaClient } from '@tollgate/db';

/** A delivery whose next attempt is due: the job to run is `(id, attempt)`. */
export interface DueAttempt {
  deliveryId: string;
  attempt: number;
}

/**
 * The deliveries due by `now`, oldest first (the dispatcher's read of the outbox). Run every second or so by the worker,
 * which queues a job per attempt under a deterministic id, so a due attempt read twice is queued once, and one the
 * queue lost (a crash before it was queued, a job removed after failing) is queued again on the next read.
 */
export async function dueAttempts(prisma: PrismaClient, now: Date, max = 500): Promise<DueAttempt[]> {
  const rows = await prisma.webhookDelivery.findMany({
    where: { status: 'pending', nextAttemptAt: { lte: now } },
    orderBy: { nextAttemptAt: 'asc' },
    take: max,
    select: { id: true, attempts: true },
  });
  return rows.map((r) => ({ deliveryId: r.id, attempt: r.attempts + 1 }));
}

/** The queue job id of an attempt (BullMQ refuses `:` in ids). */
export const attemptJobId = (due: DueAttempt) => `${due.deliveryId}_${due.attempt}`;

/**
 * Deletes what is past retention: attempts older than `days`, and events older than that with nothing left to deliver
 * (their deliveries go with them). A batch at a time, so a large backlog never holds a long lock.
 */
export async function deleteExpiredWebhookRows(prisma: PrismaClient, now: Date, days: number, batch = 10_000): Promise<{ attempts: number; events: number }> {
  const before = new Date(now.getTime() - days * 86_400_000).toISOString();
  let attempts = 0;
  let events = 0;
  for (;;) {
    const n = await prisma.$executeRaw`
      DELETE FROM webhook_attempts WHERE id IN (SELECT id FROM webhook_attempts WHERE at < ${before}::timestamptz AT TIME ZONE 'UTC' LIMIT ${batch})`;
    attempts += n;
    if (n < batch) break;
  }
  for (;;) {
    const n = await prisma.$executeRaw`
      DELETE FROM webhook_events WHERE id IN (
        SELECT e.id FROM webhook_events e WHERE e.created_at < ${before}::timestamptz AT TIME ZONE 'UTC'
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
        LIMIT ${batch})`;
    events += n;
    if (n < batch) break;
  }
  return { attempts, events };
}
