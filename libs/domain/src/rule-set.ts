import { z } from 'zod';
import { limitSpecSchema } from './limits';
import { slug } from './text';

export const TENANT_STATUSES = ['active', 'suspended'] as const;
export type TenantStatus = (typeof TENANT_STATUSES)[number];

const compiledTenantSchema = z.object({
  id: z.string().min(1),
  slug,
  status: z.enum(TENANT_STATUSES),
  plan: slug,
  limits: z
    .array(limitSpecSchema)
    .refine((ls) => new Set(ls.map((l) => l.name)).size === ls.length, 'limit names must be unique'),
});

const compiledServiceKeySchema = z.object({
  id: z.string().min(1),
  prefix: z.string().min(1),
  /** SHA-256 of the whole key, hex. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  /** Tenant slugs this key may check; null = every tenant. */
  tenants: z.array(slug).nullable(),
  expiresAt: z.string().datetime().nullable(),
});

/** The rules every API node enforces: compiled from Postgres, stored in Redis, swapped in memory. */
export const ruleSetSchema = z.object({
  version: z.int().min(1),
  compiledAt: z.string().datetime(),
  tenants: z.record(slug, compiledTenantSchema),
  serviceKeys: z.array(compiledServiceKeySchema),
});

export type RuleSet = z.infer<typeof ruleSetSchema>;
export type CompiledTenant = z.infer<typeof compiledTenantSchema>;
export type CompiledServiceKey = z.infer<typeof compiledServiceKeySchema>;
/** A rule set before it is numbered. */
export type RuleSetBody = Omit<RuleSet, 'version' | 'compiledAt'>;
