/** The file beside the migrations that holds the schema the last migration produced. */
export const SNAPSHOT: string;
/** Writes the next migration of `prismaDir` (prisma/ by default) and updates its snapshot; null when nothing changed. */
export function writeMigration(options: { prismaDir?: string; name: string; now?: Date; databaseUrl?: string }): string | null;
/** The server's `postgres` database at `databaseUrl` (DATABASE_URL by default): what the Prisma CLI connects to for a diff of two schema files. */
export function diffDatabaseUrl(databaseUrl?: string): string;
