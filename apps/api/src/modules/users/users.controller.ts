import { Body, Delete, HttpCode, Inject, Param, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { userPageSchema, userViewSchema } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import type { z } from 'zod';
import { Access } from '../../common/access.decorator';
import { BearerController, OperatorRoute } from '../../common/route';
import { ApiNoContent } from '../../common/api-json-body';
import { actorOf } from '../../common/audit';
import { type Caller, CurrentCaller } from '../../common/caller';
import { IdPipe } from '../../common/id.pipe';
import { ApiQueryOf } from '../../common/api-query';
import { ZodPipe } from '../../common/zod.pipe';
import { pageOfRows } from '../../common/page-size';
import { containsText } from '../../common/text-filter';
import { found } from '../../common/found';
import { PRISMA } from '../../infra/infra.module';
import { listUsersQuery, newUserSchema, type NewUser, userPatchSchema, type UserPatch } from './dto/user.schemas';
import { toUserView, userInclude, type UserView } from './user-views';
import { CreateUserUseCase, DeleteUserUseCase, UpdateUserUseCase } from './use-cases/users.use-cases';

/** Dashboard accounts: operators, and tenants' users who see only their own tenant. */
@BearerController('users', 'v1/admin/users')
export class UsersController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly createUser: CreateUserUseCase,
    private readonly updateUser: UpdateUserUseCase,
    private readonly deleteUser: DeleteUserUseCase,
  ) {}

  /** Users by e-mail, a page at a time (`nextCursor` is the next page's `cursor`), filtered by role, tenant or text. */
  @OperatorRoute('GET', 'List users', userPageSchema)
  @ApiQueryOf(listUsersQuery, { q: 'part of an e-mail or name' })
  async list(@Query(new ZodPipe(listUsersQuery)) query: z.infer<typeof listUsersQuery>): Promise<{ items: UserView[]; nextCursor: string | null }> {
    const rows = await this.prisma.user.findMany({
      where: {
        ...(query.role ? { role: query.role } : {}),
        ...(query.tenantId ? { tenantId: query.tenantId } : {}),
        ...(query.q ? { OR: [{ email: containsText(query.q) }, { name: containsText(query.q) }] } : {}),
        ...(query.cursor ? { email: { gt: query.cursor } } : {}),
      },
      include: userInclude,
      orderBy: { email: 'asc' },
      take: query.pageSize + 1,
    });
    return pageOfRows(rows, query.pageSize, toUserView, (last) => last.email);
  }

  @OperatorRoute('GET :userId', 'Get a user', userViewSchema)
  async get(@Param('userId', IdPipe) userId: string): Promise<UserView> {
    return toUserView(found(await this.prisma.user.findUnique({ where: { id: userId }, include: userInclude }), 'user'));
  }

  @OperatorRoute('POST', 'Create a user', userViewSchema, {
    body: newUserSchema,
    example: { email: 'ops@acme.example', name: 'Acme operations', role: 'tenant', tenantId: '00000000-0000-4000-8000-000000000000', password: 'a long passphrase' },
  })
  create(@CurrentCaller() caller: Caller, @Body(new ZodPipe(newUserSchema)) input: NewUser): Promise<UserView> {
    return this.createUser.execute(actorOf(caller), input);
  }

  @OperatorRoute('PATCH :userId', 'Update a user', userViewSchema, { body: userPatchSchema, example: { password: 'another long passphrase' } })
  update(@CurrentCaller() caller: Caller, @Param('userId', IdPipe) userId: string, @Body(new ZodPipe(userPatchSchema)) patch: UserPatch): Promise<UserView> {
    return this.updateUser.execute(actorOf(caller), userId, patch);
  }

  @Delete(':userId')
  @ApiOperation({ summary: 'Delete a user' })
  @HttpCode(204)
  @Access('operator')
  @ApiNoContent('deleted')
  async remove(@CurrentCaller() caller: Caller, @Param('userId', IdPipe) userId: string): Promise<void> {
    await this.deleteUser.execute(actorOf(caller), caller.kind === 'operator' && caller.sessionId ? caller.user.id : null, userId);
  }
}
