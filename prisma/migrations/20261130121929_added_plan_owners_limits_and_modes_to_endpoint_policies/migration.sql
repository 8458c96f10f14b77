-- endpoint_policies existed since the initial schema but no code ever wrote to it: the columns are replaced
-- (mode and failure_mode become enums) without carrying rows over.

-- CreateEnum
CREATE TYPE "PolicyMode" AS ENUM ('enforce', 'shadow', 'off');

-- CreateEnum
CREATE TYPE "FailureMode" AS ENUM ('open', 'closed', 'local');

-- CreateEnum
CREATE TYPE "SubjectScope" AS ENUM ('tenant', 'subject', 'ip');

-- AlterTable
ALTER TABLE "endpoint_policies" ADD COLUMN     "name" TEXT NOT NULL,
ADD COLUMN     "plan_id" UUID,
ADD COLUMN     "scope" "SubjectScope" NOT NULL DEFAULT 'tenant',
DROP COLUMN "mode",
ADD COLUMN     "mode" "PolicyMode" NOT NULL DEFAULT 'enforce',
DROP COLUMN "failure_mode",
ADD COLUMN     "failure_mode" "FailureMode" NOT NULL DEFAULT 'open';

-- CreateTable
CREATE TABLE "endpoint_policy_limits" (
    "id" UUID NOT NULL,
    "policy_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "window_s" INTEGER NOT NULL,
    "limit" INTEGER NOT NULL,
    "algorithm" "Algorithm" NOT NULL DEFAULT 'fixed_window',
    "burst" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "endpoint_policy_limits_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "endpoint_policy_limits_policy_id_name_key" ON "endpoint_policy_limits"("policy_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "endpoint_policies_plan_id_method_pattern_key" ON "endpoint_policies"("plan_id", "method", "pattern");

-- CreateIndex
CREATE UNIQUE INDEX "endpoint_policies_plan_id_name_key" ON "endpoint_policies"("plan_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "endpoint_policies_tenant_id_name_key" ON "endpoint_policies"("tenant_id", "name");

-- AddForeignKey
ALTER TABLE "endpoint_policies" ADD CONSTRAINT "endpoint_policies_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "plans"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endpoint_policy_limits" ADD CONSTRAINT "endpoint_policy_limits_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "endpoint_policies"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- A policy belongs to exactly one owner: a plan or a tenant (Prisma's schema language cannot say this).
ALTER TABLE "endpoint_policies" ADD CONSTRAINT "endpoint_policies_one_owner" CHECK (num_nonnulls("plan_id", "tenant_id") = 1);
