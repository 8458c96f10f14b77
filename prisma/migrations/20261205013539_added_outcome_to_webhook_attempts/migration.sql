-- CreateEnum
CREATE TYPE "WebhookAttemptOutcome" AS ENUM ('delivered', 'failed');

-- AlterTable
ALTER TABLE "webhook_attempts" ADD COLUMN     "outcome" "WebhookAttemptOutcome",
ALTER COLUMN "latency_ms" DROP NOT NULL;


-- Every attempt written before this one was recorded whole, after its answer: its outcome follows from its status.
UPDATE "webhook_attempts" SET "outcome" = CASE WHEN "status_code" BETWEEN 200 AND 299 THEN 'delivered'::"WebhookAttemptOutcome" ELSE 'failed'::"WebhookAttemptOutcome" END;
