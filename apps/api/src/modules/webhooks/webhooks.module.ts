import { Module } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import { DestinationGuard, parseAllowedDestinations, parseEncryptionKeys, SecretBox } from '@tollgate/webhooks';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { PRISMA } from '../../infra/infra.module';
import { AuthModule } from '../auth/auth.module';
import { TenantSelfModule } from '../tenant-self/tenant-self.module';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookSendLimits } from './webhook-send-limits';
import { AdminWebhooksController, TenantWebhooksController } from './webhooks.controller';

/** Webhook endpoints and their delivery log (docs/adr/0017-webhooks.md); the worker delivers. */
@Module({
  imports: [AuthModule, TenantSelfModule],
  controllers: [AdminWebhooksController, TenantWebhooksController],
  providers: [
    { provide: SecretBox, inject: [PRISMA, API_CONFIG], useFactory: (prisma: PrismaClient, config: ApiConfig) => new SecretBox(prisma, parseEncryptionKeys(config.webhooks.encryptionKeys)) },
    { provide: DestinationGuard, inject: [API_CONFIG], useFactory: (config: ApiConfig) => new DestinationGuard(parseAllowedDestinations(config.webhooks.allowedDestinations)) },
    WebhookEndpointsService,
    WebhookDeliveriesService,
    WebhookSendLimits,
  ],
})
export class WebhooksModule {}
