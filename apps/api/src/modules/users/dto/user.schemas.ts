import { freeText, patchSchema, queryText } from '@tollgate/domain';
import { z } from 'zod';
import { pageSizeQuery } from '../../../common/page-size';

/** Long enough that an online guess is hopeless; the upper bound keeps argon2's input sane. */
export const passwordSchema = z.string().min(12, 'must be at least 12 characters').max(256);
const email = z.email().max(254).transform((e) => e.toLowerCase());

export const USER_ROLES = ['operator', 'tenant'] as const;

export const newUserSchema = z
  .strictObject({
    email,
    name: freeText(100),
    role: z.enum(USER_ROLES),
    /** Required for a tenant's user (the tenant it sees), refused for an operator. */
    tenantId: z.uuid('must be a tenant id').optional(),
    password: passwordSchema,
  })
  .superRefine((u, ctx) => {
    if (u.role === 'tenant' && !u.tenantId) ctx.addIssue({ code: 'custom', path: ['tenantId'], message: "a tenant's user needs a tenantId" });
    if (u.role === 'operator' && u.tenantId) ctx.addIssue({ code: 'custom', path: ['tenantId'], message: 'an operator belongs to no tenant' });
  });
export type NewUser = z.infer<typeof newUserSchema>;

/** A user's name or password (a new password signs the user out everywhere). Role and tenant never change. */
export const userPatchSchema = patchSchema({ name: freeText(100), password: passwordSchema });
export type UserPatch = z.infer<typeof userPatchSchema>;

export const listUsersQuery = z.strictObject({
  role: z.enum(USER_ROLES).optional(),
  tenantId: z.uuid('must be a tenant id').optional(),
  /** Users whose e-mail or name contains this (case-insensitive). */
  q: freeText(100).optional(),
  /** The e-mail of the last user of the previous page. */
  cursor: queryText(254).optional(),
  ...pageSizeQuery,
});
