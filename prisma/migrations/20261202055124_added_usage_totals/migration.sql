-- CreateTable
CREATE TABLE "usage_total_minute" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "result" "UsageResult" NOT NULL,
    "decisions" BIGINT NOT NULL,
    "cost" BIGINT NOT NULL,

    CONSTRAINT "usage_total_minute_pkey" PRIMARY KEY ("bucket","result")
);

-- CreateTable
CREATE TABLE "usage_total_hour" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "result" "UsageResult" NOT NULL,
    "decisions" BIGINT NOT NULL,
    "cost" BIGINT NOT NULL,

    CONSTRAINT "usage_total_hour_pkey" PRIMARY KEY ("bucket","result")
);

-- CreateTable
CREATE TABLE "usage_total_day" (
    "day" DATE NOT NULL,
    "result" "UsageResult" NOT NULL,
    "decisions" BIGINT NOT NULL,
    "cost" BIGINT NOT NULL,

    CONSTRAINT "usage_total_day_pkey" PRIMARY KEY ("day","result")
);


-- The totals of what is already stored.
INSERT INTO "usage_total_minute" ("bucket", "result", "decisions", "cost")
SELECT "bucket", "result", sum("decisions"), sum("cost") FROM "usage_minute" GROUP BY "bucket", "result";
INSERT INTO "usage_total_hour" ("bucket", "result", "decisions", "cost")
SELECT "bucket", "result", sum("decisions"), sum("cost") FROM "usage_hour" GROUP BY "bucket", "result";
INSERT INTO "usage_total_day" ("day", "result", "decisions", "cost")
SELECT "day", "result", sum("decisions"), sum("cost") FROM "usage_day" GROUP BY "day", "result";
