-- AlterTable
ALTER TABLE "alert_rules" ADD COLUMN     "repeat_interval_minutes" INTEGER NOT NULL DEFAULT 60,
ADD COLUMN     "silence_reason" TEXT,
ADD COLUMN     "silenced_by" TEXT,
ADD COLUMN     "silenced_until" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "alerts" ADD COLUMN     "acknowledged_at" TIMESTAMPTZ(3),
ADD COLUMN     "acknowledged_by" TEXT,
ADD COLUMN     "notifications" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "notified_at" TIMESTAMPTZ(3),
ADD COLUMN     "notified_threshold" INTEGER;

-- CreateIndex
CREATE INDEX "alerts_rule_id_tenant_id_limit_name_notified_at_idx" ON "alerts"("rule_id", "tenant_id", "limit_name", "notified_at");


-- Every alert that fired so far was notified when it fired: the repeat interval counts from there.
UPDATE "alerts" SET "notified_at" = "fired_at", "notifications" = 1 WHERE "fired_at" IS NOT NULL;
UPDATE "alerts" a SET "notified_threshold" = t.highest
FROM (SELECT "id", max(v::int) AS highest FROM "alerts", jsonb_array_elements_text("details"->'thresholds') AS v
      WHERE "kind" = 'quota_threshold' GROUP BY "id") t
WHERE a."id" = t."id";

-- A quota alert now stays open across the windows that keep crossing: at most one firing per rule, tenant and limit.
-- Of those firing now, all but the newest are resolved at their window's end first.
UPDATE "alerts" SET "state" = 'resolved', "resolved_at" = "window_end"
WHERE "kind" = 'quota_threshold' AND "state" = 'firing'
  AND "id" NOT IN (SELECT max("id") FROM "alerts" WHERE "kind" = 'quota_threshold' AND "state" = 'firing' GROUP BY "rule_id", "tenant_id", "limit_name");
CREATE UNIQUE INDEX "alerts_open_quota_key" ON "alerts" ("rule_id", "tenant_id", "limit_name")
  WHERE "state" = 'firing' AND "kind" = 'quota_threshold';
