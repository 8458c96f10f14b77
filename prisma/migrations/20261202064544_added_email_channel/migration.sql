-- CreateEnum
CREATE TYPE "WebhookChannel" AS ENUM ('webhook', 'email');

-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN     "channel" "WebhookChannel" NOT NULL DEFAULT 'webhook',
ADD COLUMN     "email" TEXT,
ALTER COLUMN "url" DROP NOT NULL,
ALTER COLUMN "secret" DROP NOT NULL;

-- Exactly what the channel needs: a webhook has its URL and its secret, an e-mail endpoint its address and neither.
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_channel_fields" CHECK (
  ("channel" = 'webhook' AND "url" IS NOT NULL AND "secret" IS NOT NULL AND "email" IS NULL)
  OR ("channel" = 'email' AND "email" IS NOT NULL AND "url" IS NULL AND "secret" IS NULL AND "previous_secret" IS NULL)
);
