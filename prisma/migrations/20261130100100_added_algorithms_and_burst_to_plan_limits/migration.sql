-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "Algorithm" ADD VALUE 'sliding_log';
ALTER TYPE "Algorithm" ADD VALUE 'sliding_window';
ALTER TYPE "Algorithm" ADD VALUE 'token_bucket';
ALTER TYPE "Algorithm" ADD VALUE 'leaky_bucket';
ALTER TYPE "Algorithm" ADD VALUE 'leaky_bucket_shaper';
ALTER TYPE "Algorithm" ADD VALUE 'gcra';

-- AlterTable
ALTER TABLE "plan_limits" ADD COLUMN     "burst" INTEGER;

