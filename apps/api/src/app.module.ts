import { type DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import type { Options } from 'pino-http';
import type { ApiConfig } from './config/config';
import { apiInfra } from './infra/infra.module';
import { AlertsModule } from './modules/alerts/alerts.module';
import { AuditModule } from './modules/audit/audit.module';
import { KeysModule } from './modules/keys/keys.module';
import { AuthModule } from './modules/auth/auth.module';
import { CheckModule } from './modules/check/check.module';
import type { EnforcementHttp } from './modules/check/enforcement-http';
import { HealthModule } from './modules/health/health.module';
import { MetricsModule } from './modules/metrics/metrics.module';
import { PlansModule } from './modules/plans/plans.module';
import { PoliciesModule } from './modules/policies/policies.module';
import { TenantSelfModule } from './modules/tenant-self/tenant-self.module';
import { UsersModule } from './modules/users/users.module';
import { RulesModule } from './modules/rules/rules.module';
import { TenantsModule } from './modules/tenants/tenants.module';
import { UsageModule } from './modules/usage/usage.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';

@Module({})
export class AppModule {
  static register(config: ApiConfig, enforcementHttp: EnforcementHttp, logDestination?: DestinationStream): DynamicModule {
    const pinoHttp: Options = {
      level: config.log.level,
      redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]'],
      autoLogging: { ignore: (req) => req.url === '/health' || req.url === '/metrics' },
    };
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: logDestination ? [pinoHttp, logDestination] : pinoHttp,
          // The enforcement hot path logs no line per request (thousands a second; /metrics counts them), and skips
          // pino-http altogether: its per-request work was a tenth of a check's CPU. Errors are still logged.
          exclude: [
            { method: RequestMethod.POST, path: 'v1/check' },
            { method: RequestMethod.POST, path: 'v1/check/*path' },
            { method: RequestMethod.ALL, path: 'v1/forward-auth' },
            { method: RequestMethod.ALL, path: 'v1/forward-auth/*path' },
          ],
        }),
        apiInfra(config),
        MetricsModule,
        RulesModule,
        AuthModule,
        HealthModule,
        CheckModule.register(enforcementHttp),
        PlansModule,
        TenantsModule,
        KeysModule,
        PoliciesModule,
        UsersModule,
        AuditModule,
        TenantSelfModule,
        UsageModule,
        WebhooksModule,
        AlertsModule,
      ],
    };
  }
}
