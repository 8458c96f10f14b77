import { type DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EnforcementHttp } from './enforcement-http';
import { EnforcementRoutes } from './enforcement.routes';
import { ForwardAuthSourceReporter } from './forward-auth-source-reporter';
import { OutageReporter } from './outage-reporter';
import { ResilientLimiter } from './resilient-limiter';
import { RlsServer } from './rls/rls-server';
import { UsageRecorder } from './usage-recorder';
import { CheckQuota } from './use-cases/check-quota.use-case';

/**
 * Enforcement: served by a Fastify instance of its own (`http`, on the API's server), not by Nest controllers, and by
 * Envoy's rate limit service on a gRPC listener of its own (RlsServer, with GRPC_PORT).
 */
@Module({})
export class CheckModule {
  static register(http: EnforcementHttp): DynamicModule {
    return {
      module: CheckModule,
      imports: [AuthModule],
      providers: [{ provide: EnforcementHttp, useValue: http }, CheckQuota, ResilientLimiter, OutageReporter, ForwardAuthSourceReporter, UsageRecorder, EnforcementRoutes, RlsServer],
      exports: [EnforcementHttp],
    };
  }
}
