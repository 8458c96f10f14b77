import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EnforcementRoutes } from './enforcement.routes';
import { ResilientLimiter } from './resilient-limiter.service';
import { CheckQuota } from './use-cases/check-quota.use-case';

/** Enforcement: served by Fastify routes of their own (EnforcementRoutes), not by Nest controllers. */
@Module({ imports: [AuthModule], providers: [CheckQuota, ResilientLimiter, EnforcementRoutes] })
export class CheckModule {}
