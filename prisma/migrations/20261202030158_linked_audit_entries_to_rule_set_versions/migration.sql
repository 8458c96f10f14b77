-- AlterTable
ALTER TABLE "audit_log" ADD COLUMN     "rule_version" INTEGER;

-- CreateIndex
CREATE INDEX "audit_log_actor_id_idx" ON "audit_log"("actor", "id");

-- CreateIndex
CREATE INDEX "audit_log_rule_version_idx" ON "audit_log"("rule_version");

-- AddForeignKey
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_rule_version_fkey" FOREIGN KEY ("rule_version") REFERENCES "rule_set_versions"("version") ON DELETE SET NULL ON UPDATE CASCADE;


-- Backfill: before this column, a change's audit row and the version it published were written in one transaction
-- (the audit row first, the version next, both by the same actor, with times taken by the API as it wrote them),
-- but nothing recorded the link. Each older row of a change that publishes a version gets the first version its
-- actor published at or after it, within a minute (no transaction lasts longer). Users' changes, refused rule sets
-- and the demo seed publish no version and stay null, as does a row no version matches. Two changes of one actor
-- committing concurrently could be matched crosswise; every row written from now on is linked exactly.
CREATE INDEX "rule_set_versions_backfill_idx" ON "rule_set_versions"("author", "created_at");

UPDATE "audit_log" AS a
SET "rule_version" = (
  SELECT v."version"
  FROM "rule_set_versions" AS v
  WHERE v."author" = a."actor"
    AND v."created_at" >= a."created_at"
    AND v."created_at" < a."created_at" + interval '1 minute'
  ORDER BY v."created_at", v."version"
  LIMIT 1
)
WHERE a."rule_version" IS NULL
  AND a."entity_type" <> 'user'
  AND a."action" NOT IN ('rule_set.rejected', 'demo.seeded');

DROP INDEX "rule_set_versions_backfill_idx";
