import type { PrismaClient } from '@tollgate/db';
import { type OutgoingEvent, replaceControlCharacters } from '@tollgate/domain';
import { publishEvent } from '@tollgate/webhooks';
import type { RuleSetRefusal } from './rules-in-force';

/** Control characters of what Redis held (another installation's id may be anything) are not kept in a key. */
const printable = (text: string) => replaceControlCharacters(text).slice(0, 100);

/**
 * The `platform.rule_set_rejected` event of a refusal (docs/adr/0018-alerts.md): published in Postgres (the webhook
 * outbox, docs/adr/0017-webhooks.md) by the node that refused the rule set in Redis, once per refused revision and
 * reason whichever and however many nodes refuse it (the dedup key), to the operator's endpoints subscribed to it.
 */
export function refusalEvent(refusal: RuleSetRefusal, enforcing: number | null): OutgoingEvent {
  const { installation, version, compiledAt } = refusal.redis;
  return {
    type: 'platform.rule_set_rejected',
    tenantId: null,
    dedupKey: `platform.rule_set_rejected:${refusal.reason}:${printable(installation)}:${version}:${printable(compiledAt)}`,
    data: { reason: refusal.reason, redis: { installation: printable(installation), version, compiledAt: printable(compiledAt) }, enforcing },
  };
}

export async function publishRefusal(prisma: PrismaClient, refusal: RuleSetRefusal, enforcing: number | null): Promise<void> {
  await prisma.$transaction((tx) => publishEvent(tx, refusalEvent(refusal, enforcing)));
}
