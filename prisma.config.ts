// Prisma's CLI reads this file. The JS engine with the pg adapter needs no native engine download
// (see docs/adr/0002-migrations-without-prisma-migrate.md).
import 'dotenv/config';
import { PrismaPg } from '@prisma/adapter-pg';
import { defineConfig } from 'prisma/config';

// schema.prisma reads DATABASE_URL; without it (unset or empty) Prisma falls back to downloading a native engine.
process.env.DATABASE_URL ||= 'postgresql://postgres@127.0.0.1:5432/tollgate';
const url = process.env.DATABASE_URL;

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations', seed: 'node prisma/seed.ts' },
  engine: 'js',
  experimental: { adapter: true },
  adapter: async () => new PrismaPg({ connectionString: url }),
});
