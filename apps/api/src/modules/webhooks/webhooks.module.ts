import { Module } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import { DestinationGuard, parseAllowedDestinations, parseEncryptionKeys, SecretBox } from '@tollgate/webhooks';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { PRISMA } from '../../infra/infra.module';
import { AdminWebhooksController } from './admin-webhooks.controller';
import { TenantWebhooksController } from './tenant-webhooks.controller';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/** Webhook endpoints and their delivery log (docs/adr/0017-webhooks.md); the worker delivers. */
@Module({
  controllers: [AdminWebhooksController, TenantWebhooksController],
  providers: [
    { provide: SecretBox, inject: [PRISMA, API_CONFIG], useFactory: (prisma: PrismaClient, config: ApiConfig) => new SecretBox(prisma, parseEncryptionKeys(config.webhooks.encryptionKeys)) },
    { provide: DestinationGuard, inject: [API_CONFIG], useFactory: (config: ApiConfig) => new DestinationGuard(parseAllowedDestinations(config.webhooks.allowedDestinations)) },
    WebhookEndpointsService,
    WebhookDeliveriesService,
  ],
})
export class WebhooksModule {}
