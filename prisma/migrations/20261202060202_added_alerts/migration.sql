-- CreateEnum
CREATE TYPE "AlertKind" AS ENUM ('quota_threshold', 'denied_rate', 'platform_degraded');

-- CreateEnum
CREATE TYPE "AlertState" AS ENUM ('pending', 'firing', 'resolved');

-- CreateTable
CREATE TABLE "alert_rules" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "AlertKind" NOT NULL,
    "plan_id" UUID,
    "tenant_id" UUID,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "params" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alerts" (
    "id" BIGSERIAL NOT NULL,
    "rule_id" UUID,
    "kind" "AlertKind" NOT NULL,
    "tenant_id" UUID,
    "state" "AlertState" NOT NULL,
    "limit_name" TEXT,
    "window_start" TIMESTAMPTZ(3),
    "window_end" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "fired_at" TIMESTAMPTZ(3),
    "clear_since" TIMESTAMPTZ(3),
    "resolved_at" TIMESTAMPTZ(3),
    "details" JSONB NOT NULL,

    CONSTRAINT "alerts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_threshold_crossings" (
    "rule_id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "limit_name" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "threshold" INTEGER NOT NULL,
    "alert_id" BIGINT,

    CONSTRAINT "alert_threshold_crossings_pkey" PRIMARY KEY ("rule_id","tenant_id","limit_name","window_start","threshold")
);

-- CreateIndex
CREATE INDEX "alert_rules_kind_idx" ON "alert_rules"("kind");

-- CreateIndex
CREATE UNIQUE INDEX "alert_rules_name_key" ON "alert_rules"("name");

-- CreateIndex
CREATE INDEX "alerts_rule_id_id_idx" ON "alerts"("rule_id", "id");

-- CreateIndex
CREATE INDEX "alerts_tenant_id_id_idx" ON "alerts"("tenant_id", "id");

-- CreateIndex
CREATE INDEX "alerts_state_kind_idx" ON "alerts"("state", "kind");

-- CreateIndex
CREATE INDEX "alerts_started_at_idx" ON "alerts"("started_at");

-- CreateIndex
CREATE INDEX "alert_threshold_crossings_alert_id_idx" ON "alert_threshold_crossings"("alert_id");

-- AddForeignKey
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "plans"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_threshold_crossings" ADD CONSTRAINT "alert_threshold_crossings_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_threshold_crossings" ADD CONSTRAINT "alert_threshold_crossings_alert_id_fkey" FOREIGN KEY ("alert_id") REFERENCES "alerts"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- A rule is for a plan's tenants, one tenant, or everything: never a plan and a tenant at once.
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_one_scope" CHECK ("plan_id" IS NULL OR "tenant_id" IS NULL);

-- At most one open (pending or firing) alert of a stateful rule per tenant (the platform: the nil UUID), so that two
-- evaluators running at once cannot both open one. Quota crossings are made unique by alert_threshold_crossings.
CREATE UNIQUE INDEX "alerts_open_key" ON "alerts" ("rule_id", COALESCE("tenant_id", '00000000-0000-0000-0000-000000000000'::uuid))
  WHERE "state" IN ('pending', 'firing') AND "kind" <> 'quota_threshold';
