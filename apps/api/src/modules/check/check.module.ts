import { Module } from '@nestjs/common';
import { CheckController } from './check.controller';
import { ForwardAuthController } from './forward-auth.controller';
import { ResilientLimiter } from './resilient-limiter.service';
import { CheckQuota } from './use-cases/check-quota.use-case';

@Module({ controllers: [CheckController, ForwardAuthController], providers: [CheckQuota, ResilientLimiter] })
export class CheckModule {}
