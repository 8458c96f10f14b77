import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { Authenticator } from './authenticator';
import { ClientAddress } from './client-address';
import { LoginThrottle } from './login-throttle';
import { SelfLimiter } from './self-limiter';
import { SessionService } from './session.service';

@Module({
  controllers: [AuthController],
  providers: [Authenticator, ClientAddress, SessionService, SelfLimiter, LoginThrottle, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [Authenticator, SessionService, SelfLimiter],
})
export class AuthModule {}
