-- CreateEnum
CREATE TYPE "RegionScope" AS ENUM ('region', 'global');

-- AlterTable
ALTER TABLE "endpoint_policies" ADD COLUMN     "region_scope" "RegionScope" NOT NULL DEFAULT 'region';

