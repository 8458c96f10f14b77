import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll } from 'vitest';
import { testDatabaseUrl } from './env';
import { recreateDatabase } from './stack';

/**
 * For a describe block of database tests: a database of the file's own (`testDatabaseUrl(name)`, made again before the
 * block's tests) and a client of `poolSize` connections to it, handed to `connected` before the block's other
 * `beforeAll`s run; disconnected after its tests.
 */
export function useOwnDatabase(name: string, connected: (prisma: PrismaClient) => void, poolSize = 4): void {
  let prisma: PrismaClient | undefined;
  beforeAll(async () => {
    const url = testDatabaseUrl(name);
    await recreateDatabase(url);
    prisma = createPrismaClient(url, { poolSize });
    connected(prisma);
  });
  afterAll(async () => {
    await prisma?.$disconnect();
  });
}
