import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { Authenticator } from './authenticator.service';
import { ClientAddress } from './client-address.service';
import { LoginThrottle } from './login-throttle.service';
import { SelfLimiter } from './self-limiter.service';
import { SessionService } from './session.service';

@Module({
  controllers: [AuthController],
  providers: [Authenticator, ClientAddress, SessionService, SelfLimiter, LoginThrottle, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [Authenticator, SessionService, SelfLimiter],
})
export class AuthModule {}
