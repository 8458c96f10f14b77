import { createHash } from 'node:crypto';
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

/**
 * How a secret (an API key, a session token) is stored and looked up: the hex SHA-256 of the whole secret, never the
 * secret. The one definition: the API, the rule set (which carries keys' hashes), the seed and the tests use it.
 */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
