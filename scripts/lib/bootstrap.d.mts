/** The repository's root folder. */
export const root: string;
/** What `npm start` keeps between runs: .tollgate, or TOLLGATE_STATE_DIR. */
export const stateDir: string;
/**
 * Runs `step` unless it ran to the end for the same inputs before (a stamp in `stateDir`/stamps, under `name`) and
 * `outputs` (paths in the repository) all still exist. Returns whether it ran.
 */
export function unlessUnchanged(name: string, inputs: { files?: string[]; extra?: string[]; outputs?: string[] }, step: () => void): boolean;
/** The pid of a process named `command` in `pidFile`, when it is alive; else null. */
export function livePid(pidFile: string, command: string): number | null;
