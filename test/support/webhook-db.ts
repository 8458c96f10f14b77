import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { parseEncryptionKeys, SecretBox } from '@tollgate/webhooks';
import { testDatabaseUrl } from './env';
import { recreateDatabase } from './stack';

/**
 * A database of its own for a file of webhook tests (`testDatabaseUrl(name)`, made again), a client of `poolSize`
 * connections to it, and the box that seals endpoints' secrets (with no encryption key, as a fresh install).
 */
export async function webhookDatabase(name: string, poolSize: number): Promise<{ prisma: PrismaClient; box: SecretBox }> {
  const databaseUrl = testDatabaseUrl(name);
  await recreateDatabase(databaseUrl);
  const prisma = createPrismaClient(databaseUrl, { poolSize });
  return { prisma, box: new SecretBox(prisma, parseEncryptionKeys('')) };
}

/** Each test sees only its own endpoints: those of the tests before are disabled, their waiting deliveries cancelled. */
export async function disableEarlierEndpoints(prisma: PrismaClient): Promise<void> {
  await prisma.webhookEndpoint.updateMany({ data: { enabled: false } });
  await prisma.webhookDelivery.updateMany({ where: { status: 'pending' }, data: { status: 'cancelled', nextAttemptAt: null } });
}
