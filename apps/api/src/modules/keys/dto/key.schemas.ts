import { freeText, slug } from '@tollgate/domain';
import { z } from 'zod';
import { pageSizeQuery } from '../../../common/page-size';

/** Past the year 9999 (UTC) a time has no ISO 8601 form without an extended year, which Postgres refuses. */
const END_OF_9999 = Date.parse('9999-12-31T23:59:59.999Z');
const future = z.iso
  .datetime({ offset: true })
  .refine((d) => Date.parse(d) > Date.now(), 'must be in the future')
  .refine((d) => Date.parse(d) <= END_OF_9999, 'must be before the year 10000 (UTC)');

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
    name: freeText(100),
    tenants: z.array(tenantRef).min(1, 'name at least one tenant, or leave tenants out for every tenant').max(1000).optional(),
    expiresAt: future.optional(),
  }),
  z.strictObject({ kind: z.literal('tenant'), name: freeText(100), tenantId: z.uuid(), expiresAt: future.optional() }),
  z.strictObject({ kind: z.literal('operator'), name: freeText(100), expiresAt: future.optional() }),
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
  ...pageSizeQuery,
  /** The id of the last key of the previous page (keys come newest first). */
  cursor: z.uuid('must be a key id').optional(),
});
