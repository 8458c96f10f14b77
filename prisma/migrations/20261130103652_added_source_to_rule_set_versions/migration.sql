-- AlterTable
ALTER TABLE "rule_set_versions" ADD COLUMN     "source" JSONB;

