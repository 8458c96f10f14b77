-- AlterTable
ALTER TABLE "endpoint_policies" ADD COLUMN     "replica_ack" BOOLEAN NOT NULL DEFAULT false;

