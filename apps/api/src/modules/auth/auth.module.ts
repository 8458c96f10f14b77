import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { LoginThrottle } from './login-throttle.service';
import { SelfLimiter } from './self-limiter.service';
import { SessionService } from './session.service';

@Module({
  controllers: [AuthController],
  providers: [SessionService, SelfLimiter, LoginThrottle, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [SessionService, SelfLimiter],
})
export class AuthModule {}
