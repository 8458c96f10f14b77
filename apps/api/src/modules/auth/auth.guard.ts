import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError, ErrorCode } from '@tollgate/domain';
import { ACCESS_KEY, type AccessKind, GATEWAY_CREDENTIAL_KEY } from '../../common/access.decorator';
import type { RequestWithCaller } from '../../common/caller';
import { Authenticator } from './authenticator';

/**
 * The one guard of every Nest route, deny by default: a handler without `@Access(...)` is refused. The
 * credentials are checked by the Authenticator (which the enforcement routes, served by Fastify directly, use too).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<AccessKind[] | undefined>(ACCESS_KEY, [ctx.getHandler(), ctx.getClass()]);
    if (!access || access.length === 0) throw new AppError(ErrorCode.FORBIDDEN, 'route has no access rule');
    if (access.includes('public')) return true;
    const req = ctx.switchToHttp().getRequest<RequestWithCaller>();
    const gateway = this.reflector.getAllAndOverride<boolean | undefined>(GATEWAY_CREDENTIAL_KEY, [ctx.getHandler(), ctx.getClass()]);
    req.caller = await this.authenticator.authenticate(req, access, gateway === true);
    return true;
  }
}
