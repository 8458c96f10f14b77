import { slug } from '@tollgate/domain';
import { z } from 'zod';

const future = z.iso.datetime({ offset: true }).refine((d) => Date.parse(d) > Date.now(), 'must be in the future');

/** A tenant named by its id or its slug. */
const tenantRef = z.union([z.uuid(), slug], 'must be a tenant id or slug');

/**
 * A new key. `service`: calls the enforcement API for the tenants listed (ids or slugs; the key is bound to their
 * ids), or for every tenant when `tenants` is left out (an empty list is refused: it would say neither); `tenant`: a
 * tenant's own credential (`tenantId` required); `operator`: automation of the admin API.
 */
export const newKeySchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('service'),
    name: z.string().trim().min(1).max(100),
    tenants: z.array(tenantRef).min(1, 'name at least one tenant, or leave tenants out for every tenant').max(1000).optional(),
    expiresAt: future.optional(),
  }),
  z.strictObject({ kind: z.literal('tenant'), name: z.string().trim().min(1).max(100), tenantId: z.uuid(), expiresAt: future.optional() }),
  z.strictObject({ kind: z.literal('operator'), name: z.string().trim().min(1).max(100), expiresAt: future.optional() }),
]);
export type NewKey = z.infer<typeof newKeySchema>;

export const rotateSchema = z.strictObject({
  /** How long the old key keeps working next to the new one. */
  overlapSeconds: z.int().min(0).max(30 * 86_400).default(3_600),
});

export const listKeysQuery = z.strictObject({
  kind: z.enum(['tenant', 'service', 'operator']).optional(),
  tenantId: z.uuid().optional(),
  revoked: z.enum(['true', 'false']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  /** The id of the last key of the previous page (keys come newest first). */
  cursor: z.uuid('must be a key id').optional(),
});
