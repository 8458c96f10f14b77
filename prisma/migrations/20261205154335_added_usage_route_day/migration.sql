-- Decisions per route per calendar day in the tenant's time zone (UTC without a tenant), the sums of the route hours and
-- minutes over the day as usage_day is made (docs/adr/0015-usage-counting-and-rollups.md), kept as long as usage_day:
-- a range past the hours' retention reads its routes from here.

-- CreateTable
CREATE TABLE "usage_route_day" (
    "day" DATE NOT NULL,
    "tenant_id" UUID NOT NULL,
    "route" TEXT NOT NULL,
    "result" "UsageResult" NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "decisions" BIGINT NOT NULL,

    CONSTRAINT "usage_route_day_pkey" PRIMARY KEY ("tenant_id","day","route","result","reason")
);

-- CreateIndex
CREATE INDEX "usage_route_day_day_idx" ON "usage_route_day"("day");


-- The days of what is already stored, in each tenant's zone now (UTC for no tenant, one deleted since, or a zone this
-- Postgres does not know): from the minutes after the hour of the first kept minute, from the hours up to it (the
-- retention may have taken part of that hour's minutes; an hour counts on the date it starts on). The rollup recomputes
-- a day again, from its hours and edge minutes, whenever it writes a minute of it.
WITH zones AS (
  SELECT t.id AS tenant_id, t.time_zone AS zone FROM "tenants" t WHERE t.time_zone IN (SELECT name FROM pg_timezone_names)
),
cut AS (
  SELECT coalesce(date_trunc('hour', min("bucket")) + interval '1 hour', 'infinity'::timestamptz) AS at FROM "usage_route_minute"
),
parts AS (
  SELECT m."tenant_id", m."bucket", m."route", m."result", m."reason", m."decisions"
    FROM "usage_route_minute" m, cut WHERE m."bucket" >= cut.at
  UNION ALL
  SELECT h."tenant_id", h."bucket", h."route", h."result", h."reason", h."decisions"
    FROM "usage_route_hour" h, cut WHERE h."bucket" < cut.at
)
INSERT INTO "usage_route_day" ("day", "tenant_id", "route", "result", "reason", "decisions")
SELECT (p."bucket" AT TIME ZONE coalesce(z.zone, 'UTC'))::date, p."tenant_id", p."route", p."result", p."reason", sum(p."decisions")
FROM parts p LEFT JOIN zones z ON z.tenant_id = p."tenant_id"
GROUP BY 1, 2, 3, 4, 5;
