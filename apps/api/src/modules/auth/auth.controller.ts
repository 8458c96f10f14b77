import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AppError, ErrorCode, loginAnswerSchema, meAnswerSchema } from '@tollgate/domain';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { Access } from '../../common/access.decorator';
import { ApiAnswer, ApiJsonBody, ApiNoContent } from '../../common/api-json-body';
import { type Caller, CurrentCaller } from '../../common/caller';
import { errorResponse } from '../../common/openapi-errors';
import { retryAfter } from '../../common/openapi-headers';
import { ZodPipe } from '../../common/zod.pipe';
import { ClientAddress } from './client-address';
import { LoginThrottle } from './login-throttle';
import { type SessionUser, SessionService } from './session.service';

const loginSchema = z.strictObject({
  email: z.email().max(254),
  password: z.string().min(1).max(1024),
});

@ApiTags('auth')
@Controller('v1/auth')
export class AuthController {
  constructor(
    private readonly sessions: SessionService,
    private readonly throttle: LoginThrottle,
    private readonly clientAddress: ClientAddress,
  ) {}

  /**
   * Exchanges an operator's e-mail and password for a session token (the dashboard keeps it in a cookie).
   * Throttled per account and client address, and per client address (429 with Retry-After; LoginThrottle). The
   * dashboard names the browser's address in a signed header (ClientAddress).
   */
  @Post('login')
  @ApiOperation({ summary: 'Sign in' })
  @HttpCode(200)
  @Access('public')
  @ApiJsonBody(loginSchema, { email: 'admin@tollgate.local', password: 'tollgate-demo' })
  @ApiAnswer(loginAnswerSchema)
  @ApiResponse({ status: 401, ...errorResponse(401, 'unauthenticated: wrong e-mail or password; Retry-After when the next attempt must wait'), headers: retryAfter(false) })
  @ApiResponse({ status: 403, ...errorResponse(403, 'forbidden: a signed client address the API cannot verify') })
  @ApiResponse({ status: 429, ...errorResponse(429) })
  async login(@Body(new ZodPipe(loginSchema)) body: z.infer<typeof loginSchema>, @Req() request: FastifyRequest) {
    const address = await this.clientAddress.of(request);
    const { token, expiresAt, user } = await this.throttle.attempt(body.email, address, () => this.sessions.login(body.email, body.password));
    return { token, expiresAt: expiresAt.toISOString(), user };
  }

  @Post('logout')
  @ApiOperation({ summary: 'Sign out' })
  @HttpCode(204)
  @Access('operator', 'tenant')
  @ApiBearerAuth()
  @ApiNoContent('signed out')
  async logout(@CurrentCaller() caller: Caller): Promise<void> {
    if ((caller.kind === 'operator' || caller.kind === 'tenant') && caller.sessionId) await this.sessions.logout(caller.sessionId);
  }

  /** Who is signed in: an operator, or a tenant's user (with its tenant). */
  @Get('me')
  @ApiOperation({ summary: 'Get the signed-in user' })
  @Access('operator', 'tenant')
  @ApiBearerAuth()
  @ApiAnswer(meAnswerSchema)
  me(@CurrentCaller() caller: Caller): { user: SessionUser } {
    if (caller.kind === 'operator') return { user: caller.user };
    if (caller.kind === 'tenant' && caller.user) return { user: { ...caller.user, tenantId: caller.tenantId } };
    throw new AppError(ErrorCode.FORBIDDEN, 'a key has no user: sign in to see who you are');
  }
}
