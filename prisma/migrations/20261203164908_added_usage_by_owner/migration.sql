-- CreateTable
CREATE TABLE "usage_by_tenant_minute" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "tenant_id" UUID NOT NULL,
    "decisions" BIGINT NOT NULL,
    "denied" BIGINT NOT NULL,
    "cost" BIGINT NOT NULL,

    CONSTRAINT "usage_by_tenant_minute_pkey" PRIMARY KEY ("bucket","tenant_id")
);

-- CreateTable
CREATE TABLE "usage_by_policy_minute" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "policy_id" UUID NOT NULL,
    "decisions" BIGINT NOT NULL,
    "denied" BIGINT NOT NULL,
    "cost" BIGINT NOT NULL,

    CONSTRAINT "usage_by_policy_minute_pkey" PRIMARY KEY ("bucket","policy_id")
);

-- CreateTable
CREATE TABLE "usage_by_tenant_hour" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "tenant_id" UUID NOT NULL,
    "decisions" BIGINT NOT NULL,
    "denied" BIGINT NOT NULL,
    "cost" BIGINT NOT NULL,

    CONSTRAINT "usage_by_tenant_hour_pkey" PRIMARY KEY ("bucket","tenant_id")
);

-- CreateTable
CREATE TABLE "usage_by_policy_hour" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "policy_id" UUID NOT NULL,
    "decisions" BIGINT NOT NULL,
    "denied" BIGINT NOT NULL,
    "cost" BIGINT NOT NULL,

    CONSTRAINT "usage_by_policy_hour_pkey" PRIMARY KEY ("bucket","policy_id")
);

-- CreateTable
CREATE TABLE "usage_by_tenant_day" (
    "day" DATE NOT NULL,
    "tenant_id" UUID NOT NULL,
    "decisions" BIGINT NOT NULL,
    "denied" BIGINT NOT NULL,
    "cost" BIGINT NOT NULL,

    CONSTRAINT "usage_by_tenant_day_pkey" PRIMARY KEY ("day","tenant_id")
);

-- CreateTable
CREATE TABLE "usage_by_policy_day" (
    "day" DATE NOT NULL,
    "policy_id" UUID NOT NULL,
    "decisions" BIGINT NOT NULL,
    "denied" BIGINT NOT NULL,
    "cost" BIGINT NOT NULL,

    CONSTRAINT "usage_by_policy_day_pkey" PRIMARY KEY ("day","policy_id")
);


-- The sums of what is already stored.
INSERT INTO "usage_by_tenant_minute" ("bucket", "tenant_id", "decisions", "denied", "cost")
SELECT "bucket", "tenant_id", sum("decisions"), coalesce(sum("decisions") FILTER (WHERE "result" = 'denied'), 0), sum("cost")
FROM "usage_minute" WHERE "tenant_id" IS NOT NULL GROUP BY 1, 2;
INSERT INTO "usage_by_tenant_hour" ("bucket", "tenant_id", "decisions", "denied", "cost")
SELECT "bucket", "tenant_id", sum("decisions"), coalesce(sum("decisions") FILTER (WHERE "result" = 'denied'), 0), sum("cost")
FROM "usage_hour" WHERE "tenant_id" IS NOT NULL GROUP BY 1, 2;
INSERT INTO "usage_by_tenant_day" ("day", "tenant_id", "decisions", "denied", "cost")
SELECT "day", "tenant_id", sum("decisions"), coalesce(sum("decisions") FILTER (WHERE "result" = 'denied'), 0), sum("cost")
FROM "usage_day" WHERE "tenant_id" IS NOT NULL GROUP BY 1, 2;
INSERT INTO "usage_by_policy_minute" ("bucket", "policy_id", "decisions", "denied", "cost")
SELECT "bucket", "policy_id", sum("decisions"), coalesce(sum("decisions") FILTER (WHERE "result" = 'denied'), 0), sum("cost")
FROM "usage_minute" WHERE "policy_id" IS NOT NULL GROUP BY 1, 2;
INSERT INTO "usage_by_policy_hour" ("bucket", "policy_id", "decisions", "denied", "cost")
SELECT "bucket", "policy_id", sum("decisions"), coalesce(sum("decisions") FILTER (WHERE "result" = 'denied'), 0), sum("cost")
FROM "usage_hour" WHERE "policy_id" IS NOT NULL GROUP BY 1, 2;
INSERT INTO "usage_by_policy_day" ("day", "policy_id", "decisions", "denied", "cost")
SELECT "day", "policy_id", sum("decisions"), coalesce(sum("decisions") FILTER (WHERE "result" = 'denied'), 0), sum("cost")
FROM "usage_day" WHERE "policy_id" IS NOT NULL GROUP BY 1, 2;
