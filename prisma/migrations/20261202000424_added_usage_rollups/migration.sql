-- Usage rolled up from Redis by the worker (docs/adr/0015-usage-counting-and-rollups.md). Rows are upserted with
-- absolute values on their unique key, in which a missing tenant or policy (null) is one value like any other:
-- NULLS NOT DISTINCT (PostgreSQL 15+), which Prisma's schema cannot say.

-- CreateEnum
CREATE TYPE "UsageResult" AS ENUM ('allowed', 'denied', 'shadow_denied', 'degraded_allowed', 'degraded_denied', 'refused');

-- CreateTable
CREATE TABLE "usage_minute" (
    "id" BIGSERIAL NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "tenant_id" UUID,
    "policy_id" UUID,
    "result" "UsageResult" NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "decisions" BIGINT NOT NULL,
    "cost" BIGINT NOT NULL,

    CONSTRAINT "usage_minute_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_hour" (
    "id" BIGSERIAL NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "tenant_id" UUID,
    "policy_id" UUID,
    "result" "UsageResult" NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "decisions" BIGINT NOT NULL,
    "cost" BIGINT NOT NULL,

    CONSTRAINT "usage_hour_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_day" (
    "id" BIGSERIAL NOT NULL,
    "day" DATE NOT NULL,
    "tenant_id" UUID,
    "policy_id" UUID,
    "result" "UsageResult" NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "decisions" BIGINT NOT NULL,
    "cost" BIGINT NOT NULL,

    CONSTRAINT "usage_day_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "usage_minute_tenant_id_bucket_idx" ON "usage_minute"("tenant_id", "bucket");

-- CreateIndex
CREATE UNIQUE INDEX "usage_minute_key" ON "usage_minute"("bucket", "tenant_id", "policy_id", "result", "reason") NULLS NOT DISTINCT;

-- CreateIndex
CREATE INDEX "usage_hour_tenant_id_bucket_idx" ON "usage_hour"("tenant_id", "bucket");

-- CreateIndex
CREATE UNIQUE INDEX "usage_hour_key" ON "usage_hour"("bucket", "tenant_id", "policy_id", "result", "reason") NULLS NOT DISTINCT;

-- CreateIndex
CREATE INDEX "usage_day_tenant_id_day_idx" ON "usage_day"("tenant_id", "day");

-- CreateIndex
CREATE UNIQUE INDEX "usage_day_key" ON "usage_day"("day", "tenant_id", "policy_id", "result", "reason") NULLS NOT DISTINCT;

