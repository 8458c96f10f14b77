-- A fixed window of exactly 86,400 s used to follow the tenant's calendar day (midnight in its time zone)
-- without saying so. The calendar becomes a column of its own (docs/adr/0014-calendar-windows-are-explicit.md):
-- every such limit gets `calendar = 'day'` and behaves as before; a window of 86,400 s without it is then an
-- ordinary 24-hour window.

-- CreateEnum
CREATE TYPE "Calendar" AS ENUM ('day', 'month');

-- AlterTable
ALTER TABLE "plan_limits" ADD COLUMN     "calendar" "Calendar";

-- AlterTable
ALTER TABLE "tenant_limit_overrides" ADD COLUMN     "calendar" "Calendar";

-- AlterTable
ALTER TABLE "endpoint_policy_limits" ADD COLUMN     "calendar" "Calendar";

-- The limits that followed the calendar day until now.
UPDATE "plan_limits" SET "calendar" = 'day' WHERE "algorithm" = 'fixed_window' AND "window_s" = 86400;
UPDATE "tenant_limit_overrides" SET "calendar" = 'day' WHERE "algorithm" = 'fixed_window' AND "window_s" = 86400;
UPDATE "endpoint_policy_limits" SET "calendar" = 'day' WHERE "algorithm" = 'fixed_window' AND "window_s" = 86400;

-- Only a fixed window follows a calendar, as long as the calendar's longest window (a day; a month of 31 days),
-- as the API validates (limitShapeProblem in libs/domain/src/limits.ts).
ALTER TABLE "plan_limits" ADD CONSTRAINT "plan_limits_calendar_check"
  CHECK ("calendar" IS NULL OR ("algorithm" = 'fixed_window' AND "window_s" = CASE "calendar" WHEN 'day' THEN 86400 ELSE 2678400 END));
ALTER TABLE "tenant_limit_overrides" ADD CONSTRAINT "tenant_limit_overrides_calendar_check"
  CHECK ("calendar" IS NULL OR ("algorithm" = 'fixed_window' AND "window_s" = CASE "calendar" WHEN 'day' THEN 86400 ELSE 2678400 END));
ALTER TABLE "endpoint_policy_limits" ADD CONSTRAINT "endpoint_policy_limits_calendar_check"
  CHECK ("calendar" IS NULL OR ("algorithm" = 'fixed_window' AND "window_s" = CASE "calendar" WHEN 'day' THEN 86400 ELSE 2678400 END));
