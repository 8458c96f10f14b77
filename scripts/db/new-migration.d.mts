/** The file beside the migrations that holds the schema the last migration produced. */
export const SNAPSHOT: string;
/** Writes the next migration of `prismaDir` (prisma/ by default) and updates its snapshot; null when nothing changed. */
export function writeMigration(options: { prismaDir?: string; name: string; now?: Date }): string | null;
