/** Creates the database if missing and applies pending migrations; returns how many were applied. */
export function migrate(url: string, log?: (message: string) => void): Promise<number>;
export function ensureDatabase(url: string): Promise<boolean>;
/** The migrations of `dir` (prisma/migrations by default) in the order they apply. */
export function listMigrations(dir?: string): { name: string; sql: string; checksum: string }[];
