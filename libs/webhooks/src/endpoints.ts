import { randomUUID } from 'node:crypto';
import type { Prisma } from '@tollgate/db';
import type { EventType } from '@tollgate/domain';
import type { SecretBox } from './secret-box';
import { generateWebhookSecret } from './secret';

type Tx = Prisma.TransactionClient;

export interface NewEndpoint {
  tenantId: string | null;
  url: string;
  description: string;
  eventTypes: readonly EventType[];
}

/** Creates an endpoint with a new secret, stored sealed; the secret is answered here and never again. */
export async function createEndpoint(tx: Tx, box: SecretBox, input: NewEndpoint) {
  const id = randomUUID();
  const secret = generateWebhookSecret();
  const endpoint = await tx.webhookEndpoint.create({
    data: { id, tenantId: input.tenantId, url: input.url, description: input.description, eventTypes: [...new Set(input.eventTypes)], secret: await box.encrypt(secret, id) },
  });
  return { endpoint, secret };
}

/**
 * A new secret for an endpoint; the one it replaces is still signed with, beside it, until `overlapMs` from `now`
 * (receivers accept either while they switch). A secret older than that is dropped: at most two are ever sent.
 */
export async function rotateEndpointSecret(tx: Tx, box: SecretBox, endpointId: string, overlapMs: number, now: Date) {
  const current = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId }, select: { secret: true } });
  const secret = generateWebhookSecret();
  const endpoint = await tx.webhookEndpoint.update({
    where: { id: endpointId },
    data: {
      secret: await box.encrypt(secret, endpointId),
      previousSecret: overlapMs > 0 ? current.secret : null,
      previousSecretExpiresAt: overlapMs > 0 ? new Date(now.getTime() + overlapMs) : null,
    },
  });
  return { endpoint, secret };
}
