-- AlterTable
ALTER TABLE "tenants" ADD COLUMN     "alert_rule_cap" INTEGER,
ADD COLUMN     "webhook_endpoint_cap" INTEGER;

