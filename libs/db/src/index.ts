import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export * from './generated/prisma/client';

/** A Prisma client on the pg driver adapter (no native query engine). */
export function createPrismaClient(databaseUrl: string, options: { poolSize?: number; connectTimeoutMs?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 2_000,
  });
  return new PrismaClient({ adapter });
}
