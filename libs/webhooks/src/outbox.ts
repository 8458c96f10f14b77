import type { PrismaClient } from '@tollgate/db';

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
