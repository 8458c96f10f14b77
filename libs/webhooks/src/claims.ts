import type { PrismaClient } from '@tollgate/db';

/** One attempt a worker claimed: the delivery, its attempt number, and what it needs to send it. */
export interface ClaimedAttempt {
  deliveryId: string;
  /** 1-based; its row is in the delivery log already, without an outcome. */
  attempt: number;
  /** When it was claimed: the attempt's time (`webhook-timestamp`, the log's `at`). */
  at: Date;
  event: { id: string; type: string; createdAt: Date; data: unknown };
  endpoint: {
    id: string;
    channel: 'webhook' | 'email';
    url: string | null;
    email: string | null;
    secret: string | null;
    previousSecret: string | null;
    previousSecretExpiresAt: Date | null;
  };
}

interface ClaimRow {
  delivery_id: string;
  attempt: number;
  event_id: string;
  event_type: string;
  event_created_at: string;
  event_data: unknown;
  endpoint_id: string;
  channel: 'webhook' | 'email';
  url: string | null;
  email: string | null;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
}

/** A `timestamp` column (UTC, no zone) as an ISO string read back without any zone arithmetic. */
const utc = (at: Date) => at.toISOString();

/**
 * Claims up to `max` due deliveries in one statement (the outbox read, docs/adr/0017-webhooks.md): those `pending` and
 * due by `now`, oldest first, skipping rows another worker is claiming (`FOR UPDATE SKIP LOCKED`). Each claimed
 * delivery has its attempt counted and written to the log **before anything is sent** (no outcome yet), and its next
 * attempt put off until `leaseUntil`: no other worker takes it meanwhile, and if this one dies with the attempt in
 * flight, the delivery is due again then, and its retry is the next attempt, with the same `webhook-id`. Deliveries of
 * a disabled endpoint found due are cancelled in the same statement.
 */
export async function claimDueAttempts(prisma: PrismaClient, now: Date, leaseUntil: Date, max: number): Promise<ClaimedAttempt[]> {
  const rows = await prisma.$queryRaw<ClaimRow[]>`
    WITH due AS (
      SELECT d.id, p.enabled FROM webhook_deliveries d JOIN webhook_endpoints p ON p.id = d.endpoint_id
      WHERE d.status = 'pending' AND d.next_attempt_at <= ${utc(now)}::timestamp
      ORDER BY d.next_attempt_at LIMIT ${max}
      FOR UPDATE OF d SKIP LOCKED
    ), cancelled AS (
      UPDATE webhook_deliveries d SET status = 'cancelled', next_attempt_at = NULL FROM due WHERE d.id = due.id AND NOT due.enabled
    ), claimed AS (
      UPDATE webhook_deliveries d SET attempts = d.attempts + 1, last_attempt_at = ${utc(now)}::timestamp, next_attempt_at = ${utc(leaseUntil)}::timestamp
      FROM due WHERE d.id = due.id AND due.enabled
      RETURNING d.id, d.attempts, d.event_id, d.endpoint_id
    ), logged AS (
      INSERT INTO webhook_attempts (delivery_id, attempt, at) SELECT c.id, c.attempts, ${utc(now)}::timestamp FROM claimed c
    )
    SELECT c.id::text AS delivery_id, c.attempts AS attempt,
           e.id AS event_id, e.type AS event_type, to_char(e.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS event_created_at, e.data AS event_data,
           p.id::text AS endpoint_id, p.channel::text AS channel, p.url, p.email, p.secret, p.previous_secret,
           to_char(p.previous_secret_expires_at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS previous_secret_expires_at
    FROM claimed c JOIN webhook_events e ON e.id = c.event_id JOIN webhook_endpoints p ON p.id = c.endpoint_id`;
  return rows.map((r) => ({
    deliveryId: r.delivery_id,
    attempt: r.attempt,
    at: now,
    event: { id: r.event_id, type: r.event_type, createdAt: new Date(r.event_created_at), data: r.event_data },
    endpoint: {
      id: r.endpoint_id,
      channel: r.channel,
      url: r.url,
      email: r.email,
      secret: r.secret,
      previousSecret: r.previous_secret,
      previousSecretExpiresAt: r.previous_secret_expires_at === null ? null : new Date(r.previous_secret_expires_at),
    },
  }));
}

/**
 * Gives back claimed attempts that were never sent (a worker stopping, or one that could not start them in time): their
 * log rows go and their deliveries are due again at once, for any worker, as if never claimed. A claim that ended and
 * was taken since (the delivery moved on) is left alone.
 */
export async function releaseClaims(prisma: PrismaClient, claims: readonly ClaimedAttempt[], now: Date): Promise<void> {
  if (claims.length === 0) return;
  const ids = claims.map((c) => c.deliveryId);
  const attempts = claims.map((c) => c.attempt);
  await prisma.$executeRaw`
    WITH released AS (
      UPDATE webhook_deliveries d SET attempts = d.attempts - 1, next_attempt_at = ${utc(now)}::timestamp,
             last_attempt_at = (SELECT max(a.at) FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.attempt < k.attempt)
      FROM unnest(${ids}::uuid[], ${attempts}::int[]) AS k(id, attempt)
      WHERE d.id = k.id AND d.attempts = k.attempt AND d.status = 'pending'
      RETURNING d.id, k.attempt
    )
    DELETE FROM webhook_attempts a USING released r WHERE a.delivery_id = r.id AND a.attempt = r.attempt AND a.outcome IS NULL`;
}
