import { Prisma, type PrismaClient } from '@tollgate/db';
import type { ClaimedAttempt } from './claims';
import { disableEndpoint } from './endpoint-state';
import type { SendResult } from './http-sender';
import { DISABLE_AFTER_FAILING_MS, nextDelayMs, parseRetryAfter } from './schedule';

export type AttemptOutcome = 'delivered' | 'retrying' | 'failed';

/** What an attempt's answer means for its delivery: delivered, the next attempt's time, or failed for good. */
export interface PlannedOutcome {
  claim: ClaimedAttempt;
  result: SendResult;
  delivered: boolean;
  /** When the next attempt is due; null when none will be made. */
  next: Date | null;
}

/** The schedule applied to one answer (pure): a 2xx is delivered; otherwise the next delay, `Retry-After` on a 429 or 503. */
export function planOutcome(claim: ClaimedAttempt, result: SendResult, random?: () => number): PlannedOutcome {
  const code = result.statusCode;
  if (code !== null && code >= 200 && code < 300) return { claim, result, delivered: true, next: null };
  const retryAfterMs = code === 429 || code === 503 ? parseRetryAfter(result.retryAfter, claim.at) : null;
  const delay = result.disableReason ? null : nextDelayMs(claim.attempt, retryAfterMs, random);
  return { claim, result, delivered: false, next: delay === null ? null : new Date(claim.at.getTime() + delay) };
}

const utc = (at: Date) => at.toISOString();
/** `failing_since` (a UTC `timestamp`) as ISO text, read without any zone arithmetic. */
const ISO = Prisma.raw(`to_char(failing_since, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/**
 * Records the outcomes of attempts already in the log (claimed, without an outcome) in one transaction, however many:
 * each attempt's answer, each delivery's move (delivered; retried at `next`; failed), and the endpoints' state
 * (failing since; disabled by a 410 Gone or 5 days of failing, their waiting deliveries cancelled). A delivery moves
 * only from the attempt it is at: the outcome of an attempt whose claim ran out (another worker made the next one)
 * completes its log row and changes nothing else. Answers the endpoints disabled, with why.
 */
export async function recordOutcomes(prisma: PrismaClient, outcomes: readonly PlannedOutcome[]): Promise<Map<string, string>> {
  if (outcomes.length === 0) return new Map();
  const now = outcomes.reduce((latest, o) => (o.claim.at > latest ? o.claim.at : latest), outcomes[0]!.claim.at);
  const deliveredTo = new Set(outcomes.filter((o) => o.delivered).map((o) => o.claim.endpoint.id));
  const failedOnly = [...new Set(outcomes.filter((o) => !o.delivered && !deliveredTo.has(o.claim.endpoint.id)).map((o) => o.claim.endpoint.id))];
  return prisma.$transaction(async (tx) => {
    // Not waiting for the disk: outcomes lost with Postgres itself leave their attempts unknown, and their deliveries are
    // retried when the lease ends (at least once still holds). The claims that log attempts before sending do wait.
    await tx.$executeRaw`SET LOCAL synchronous_commit = off`;
    await tx.$executeRaw`
      UPDATE webhook_attempts a SET outcome = k.outcome::"WebhookAttemptOutcome", status_code = k.status_code, error = k.error,
             latency_ms = k.latency_ms, response_body = k.response_body
      FROM unnest(${outcomes.map((o) => o.claim.deliveryId)}::uuid[], ${outcomes.map((o) => o.claim.attempt)}::int[],
                  ${outcomes.map((o) => (o.delivered ? 'delivered' : 'failed'))}::text[], ${outcomes.map((o) => o.result.statusCode)}::int[],
                  ${outcomes.map((o) => o.result.error)}::text[], ${outcomes.map((o) => o.result.latencyMs)}::int[], ${outcomes.map((o) => o.result.body)}::text[])
           AS k(delivery_id, attempt, outcome, status_code, error, latency_ms, response_body)
      WHERE a.delivery_id = k.delivery_id AND a.attempt = k.attempt AND a.outcome IS NULL`;

    if (deliveredTo.size > 0) {
      await tx.$executeRaw`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ANY(${[...deliveredTo]}::uuid[]) AND failing_since IS NOT NULL`;
    }
    const disabled = new Map<string, string>();
    for (const o of outcomes) if (o.result.disableReason) disabled.set(o.claim.endpoint.id, o.result.disableReason);
    if (failedOnly.length > 0) {
      // Failing since the first failure after the last delivery: set once, kept by the failures after it.
      const failing = await tx.$queryRaw<{ id: string; failing_since: string }[]>`
        WITH marked AS (
          UPDATE webhook_endpoints SET failing_since = ${utc(now)}::timestamp WHERE id = ANY(${failedOnly}::uuid[]) AND failing_since IS NULL AND enabled
          RETURNING id, failing_since
        )
        SELECT id::text AS id, ${ISO} AS failing_since FROM marked
        UNION ALL SELECT id::text, ${ISO} FROM webhook_endpoints WHERE id = ANY(${failedOnly}::uuid[]) AND failing_since IS NOT NULL AND enabled`;
      for (const e of failing) {
        const since = new Date(e.failing_since);
        if (disabled.has(e.id) || now.getTime() - since.getTime() < DISABLE_AFTER_FAILING_MS) continue;
        disabled.set(e.id, `every attempt failed since ${since.toISOString()} (5 days or more); the last on ${now.toISOString()}`);
      }
    }

    const moves = outcomes.map((o) => {
      const stopped = !o.delivered && disabled.has(o.claim.endpoint.id);
      const status = o.delivered ? 'delivered' : o.next && !stopped ? 'pending' : 'failed';
      return { o, status, next: status === 'pending' ? o.next : null };
    });
    await tx.$executeRaw`
      UPDATE webhook_deliveries d SET status = k.status::"WebhookDeliveryStatus", next_attempt_at = k.next
      FROM unnest(${moves.map((m) => m.o.claim.deliveryId)}::uuid[], ${moves.map((m) => m.o.claim.attempt)}::int[],
                  ${moves.map((m) => m.status)}::text[], ${moves.map((m) => (m.next ? utc(m.next) : null))}::timestamp[])
           AS k(id, attempt, status, next)
      WHERE d.id = k.id AND d.attempts = k.attempt AND d.status = 'pending'`;
    // The endpoint's other deliveries still waiting are cancelled with it; one its owner disabled first is not told again.
    const newly = new Map<string, string>();
    for (const [endpointId, reason] of disabled) if (await disableEndpoint(tx, endpointId, reason, now)) newly.set(endpointId, reason);
    return newly;
  });
}
