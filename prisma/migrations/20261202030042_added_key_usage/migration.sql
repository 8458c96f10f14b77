-- Calls made with each API key, rolled up from Redis by the worker with the rest of usage
-- (docs/adr/0015-usage-counting-and-rollups.md): absolute values per key, minute and tenant, like usage_minute.

-- CreateTable
CREATE TABLE "key_usage_minute" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "key_id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "decisions" BIGINT NOT NULL,
    "denied" BIGINT NOT NULL,
    "other" BIGINT NOT NULL,

    CONSTRAINT "key_usage_minute_pkey" PRIMARY KEY ("key_id","bucket","tenant_id")
);

-- CreateTable
CREATE TABLE "key_usage_hour" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "key_id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "decisions" BIGINT NOT NULL,
    "denied" BIGINT NOT NULL,
    "other" BIGINT NOT NULL,

    CONSTRAINT "key_usage_hour_pkey" PRIMARY KEY ("key_id","bucket","tenant_id")
);

-- CreateIndex
CREATE INDEX "key_usage_minute_bucket_idx" ON "key_usage_minute"("bucket");

-- CreateIndex
CREATE INDEX "key_usage_hour_bucket_idx" ON "key_usage_hour"("bucket");

-- AddForeignKey
ALTER TABLE "key_usage_minute" ADD CONSTRAINT "key_usage_minute_key_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "key_usage_hour" ADD CONSTRAINT "key_usage_hour_key_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;

