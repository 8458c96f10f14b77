-- CreateTable
CREATE TABLE "tenant_limit_overrides" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "window_s" INTEGER NOT NULL,
    "limit" INTEGER NOT NULL,
    "algorithm" "Algorithm" NOT NULL DEFAULT 'fixed_window',
    "burst" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "tenant_limit_overrides_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tenant_limit_overrides_tenant_id_name_key" ON "tenant_limit_overrides"("tenant_id", "name");

-- AddForeignKey
ALTER TABLE "tenant_limit_overrides" ADD CONSTRAINT "tenant_limit_overrides_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

