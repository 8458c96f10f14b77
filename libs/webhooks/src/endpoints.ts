import { randomUUID } from 'node:crypto';
import type { Prisma } from '@tollgate/db';
import type { EventType } from '@tollgate/domain';
import type { SecretBox } from './secret-box';
import { generateWebhookSecret } from './secret';

type Tx = Prisma.TransactionClient;

/** A webhook (`url`) or an e-mail endpoint (`channel: 'email'` and its `email` address). */
export type NewEndpoint = {
  tenantId: string | null;
  description: string;
  eventTypes: readonly EventType[];
} & ({ channel?: 'webhook'; url: string } | { channel: 'email'; email: string });

/**
 * Creates an endpoint. A webhook gets a new secret, stored sealed, answered here and never again; an e-mail endpoint
 * has none (nothing is signed): its `secret` is null.
 */
export async function createEndpoint(tx: Tx, box: SecretBox, input: NewEndpoint): Promise<{ endpoint: Awaited<ReturnType<Tx['webhookEndpoint']['create']>>; secret: string | null }> {
  const id = randomUUID();
  const common = { id, tenantId: input.tenantId, description: input.description, eventTypes: [...new Set(input.eventTypes)] };
  if (input.channel === 'email') {
    return { endpoint: await tx.webhookEndpoint.create({ data: { ...common, channel: 'email', email: input.email } }), secret: null };
  }
  const secret = generateWebhookSecret();
  const endpoint = await tx.webhookEndpoint.create({ data: { ...common, url: input.url, secret: await box.encrypt(secret, id) } });
  return { endpoint, secret };
}

/**
 * A new secret for an endpoint; the one it replaces is still signed with, beside it, until `overlapMs` from `now`
 * (receivers accept either while they switch). A secret older than that is dropped: at most two are ever sent.
 */
export async function rotateEndpointSecret(tx: Tx, box: SecretBox, endpointId: string, overlapMs: number, now: Date) {
  const current = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId }, select: { secret: true, channel: true } });
  if (current.channel !== 'webhook') throw new Error('an e-mail endpoint has no secret to rotate');
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
