import { Inject, Injectable } from '@nestjs/common';
import { hash } from '@node-rs/argon2';
import { AppError, ErrorCode } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { writeAudit } from '../../../common/audit';
import { found } from '../../../common/found';
import { PRISMA } from '../../../infra/infra.module';
import type { NewUser, UserPatch } from '../dto/user.schemas';
import { toUserView, userInclude, type UserView } from '../user-views';

/*
 * Users are not rules: their changes commit with their audit row in one transaction, without a new rule set
 * version. Passwords are hashed with argon2id (@node-rs/argon2 defaults) before the transaction opens.
 */

/** Creates an operator or a tenant's user (409 for a taken e-mail). */
@Injectable()
export class CreateUserUseCase {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async execute(actor: string, input: NewUser): Promise<UserView> {
    const passwordHash = await hash(input.password);
    return this.prisma.$transaction(async (tx) => {
      if (input.tenantId && !(await tx.tenant.findUnique({ where: { id: input.tenantId }, select: { id: true } }))) {
        throw new AppError(ErrorCode.VALIDATION_FAILED, 'no tenant with this id', 'tenantId');
      }
      if (await tx.user.findUnique({ where: { email: input.email }, select: { id: true } })) {
        throw new AppError(ErrorCode.CONFLICT, 'a user with this e-mail exists', 'email');
      }
      const created = await tx.user.create({
        data: { email: input.email, name: input.name, role: input.role, tenantId: input.tenantId ?? null, passwordHash },
        include: userInclude,
      });
      const view = toUserView(created);
      await writeAudit(tx, { actor, action: 'user.created', entityType: 'user', entityId: created.id, after: view });
      return view;
    });
  }
}

/** Renames a user or sets a new password (which ends the user's sessions). */
@Injectable()
export class UpdateUserUseCase {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async execute(actor: string, userId: string, patch: UserPatch): Promise<UserView> {
    const passwordHash = patch.password === undefined ? undefined : await hash(patch.password);
    return this.prisma.$transaction(async (tx) => {
      const before = found(await tx.user.findUnique({ where: { id: userId }, include: userInclude }), 'user');
      const after = await tx.user.update({
        where: { id: userId },
        data: { ...(patch.name !== undefined ? { name: patch.name } : {}), ...(passwordHash ? { passwordHash } : {}) },
        include: userInclude,
      });
      // A new password ends every session of the user: whoever knew the old one is out.
      if (passwordHash) await tx.session.deleteMany({ where: { userId } });
      await writeAudit(tx, {
        actor,
        action: 'user.updated',
        entityType: 'user',
        entityId: userId,
        before: toUserView(before),
        after: { ...toUserView(after), ...(passwordHash ? { passwordChanged: true } : {}) },
      });
      return toUserView(after);
    });
  }
}

/** Deletes a user; nobody deletes their own account. */
@Injectable()
export class DeleteUserUseCase {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async execute(actor: string, actorUserId: string | null, userId: string): Promise<void> {
    if (userId === actorUserId) throw new AppError(ErrorCode.CONFLICT, 'you cannot delete your own account; ask another operator');
    await this.prisma.$transaction(async (tx) => {
      const before = found(await tx.user.findUnique({ where: { id: userId }, include: userInclude }), 'user');
      await tx.user.delete({ where: { id: userId } });
      await writeAudit(tx, { actor, action: 'user.deleted', entityType: 'user', entityId: userId, before: toUserView(before) });
    });
  }
}
