-- Decisions per route (METHOD /path as the check named it), whether or not an endpoint policy matched, rolled up from
-- Redis by the worker with the rest of usage (docs/adr/0015-usage-counting-and-rollups.md): absolute values per tenant,
-- minute, route, result and reason, like usage_minute; at most USAGE_ROUTES_PER_TENANT_MINUTE routes per tenant and
-- minute, the rest under route 'other'.

-- CreateTable
CREATE TABLE "usage_route_minute" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "tenant_id" UUID NOT NULL,
    "route" TEXT NOT NULL,
    "result" "UsageResult" NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "decisions" BIGINT NOT NULL,

    CONSTRAINT "usage_route_minute_pkey" PRIMARY KEY ("tenant_id","bucket","route","result","reason")
);

-- CreateTable
CREATE TABLE "usage_route_hour" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "tenant_id" UUID NOT NULL,
    "route" TEXT NOT NULL,
    "result" "UsageResult" NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "decisions" BIGINT NOT NULL,

    CONSTRAINT "usage_route_hour_pkey" PRIMARY KEY ("tenant_id","bucket","route","result","reason")
);

-- CreateIndex
CREATE INDEX "usage_route_minute_bucket_idx" ON "usage_route_minute"("bucket");

-- CreateIndex
CREATE INDEX "usage_route_hour_bucket_idx" ON "usage_route_hour"("bucket");

