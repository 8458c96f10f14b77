-- CreateTable
CREATE TABLE "installation" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "singleton" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "installation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "installation_singleton_key" ON "installation"("singleton");


-- Written by hand: the one row, made with the schema (a database restored from a dump keeps its id).
ALTER TABLE "installation" ADD CONSTRAINT "installation_singleton_check" CHECK ("singleton");
INSERT INTO "installation" ("singleton") VALUES (true);
