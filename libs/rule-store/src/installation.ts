import type { PrismaClient } from '@tollgate/db';

/**
 * This database's installation id (the one row of `installation`, made with the schema; a dump restored
 * elsewhere keeps it). Made again if someone deleted it: a new identity, so Redis's rule set is replaced.
 */
export async function readInstallationId(prisma: PrismaClient): Promise<string> {
  const row = await prisma.installation.upsert({ where: { singleton: true }, create: {}, update: {}, select: { id: true } });
  return row.id;
}
