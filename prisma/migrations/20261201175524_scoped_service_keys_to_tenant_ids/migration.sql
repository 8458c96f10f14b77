-- A service key's scope was a list of tenant slugs (`tenant_scope`, empty = every tenant): a key scoped to a
-- deleted tenant reached a new tenant given the same slug. Scopes become rows that name tenants by id (deleting a
-- tenant deletes its rows), and "every tenant" becomes a flag of its own, so that a key whose scoped tenants are
-- all deleted stays scoped to nothing instead of reaching every tenant.

-- CreateTable
CREATE TABLE "api_key_tenant_scopes" (
    "api_key_id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,

    CONSTRAINT "api_key_tenant_scopes_pkey" PRIMARY KEY ("api_key_id","tenant_id")
);

-- CreateIndex
CREATE INDEX "api_key_tenant_scopes_tenant_id_idx" ON "api_key_tenant_scopes"("tenant_id");

-- AddForeignKey
ALTER TABLE "api_key_tenant_scopes" ADD CONSTRAINT "api_key_tenant_scopes_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_key_tenant_scopes" ADD CONSTRAINT "api_key_tenant_scopes_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "all_tenants" BOOLEAN NOT NULL DEFAULT false;

-- Existing scopes, slugs to ids: a slug no tenant has any more is dropped (the key loses it, never gains a tenant).
INSERT INTO "api_key_tenant_scopes" ("api_key_id", "tenant_id")
SELECT DISTINCT k."id", t."id"
FROM "api_keys" k
CROSS JOIN LATERAL unnest(k."tenant_scope") AS s(slug)
JOIN "tenants" t ON t."slug" = s.slug
WHERE k."kind" = 'service';

-- Only a service key whose list was empty reached every tenant; one whose slugs are all gone reaches none.
UPDATE "api_keys" SET "all_tenants" = true WHERE "kind" = 'service' AND cardinality("tenant_scope") = 0;

-- AlterTable
ALTER TABLE "api_keys" DROP COLUMN "tenant_scope";

-- Only service keys are scoped to tenants (Prisma's schema language cannot say this).
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_all_tenants_only_service" CHECK (NOT "all_tenants" OR "kind" = 'service');
