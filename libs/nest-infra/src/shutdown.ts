import type { INestApplicationContext } from '@nestjs/common';
import { z } from 'zod';

/** `SHUTDOWN_TIMEOUT_MS` of the API and the worker: the longest a SIGTERM or SIGINT takes to end the process. */
export const shutdownEnv = {
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(8_000),
};

/** The exit codes of a shutdown: every step finished, or the bound (or a second signal) ended the process first. */
export const EXIT_CODE = { clean: 0, forced: 70 } as const;

/**
 * The steps of this process's shutdown that are still running, by name: what the last log line names when the bound
 * ends the process before they finish. One per process, provided by InfraModule.
 */
export class ShutdownSteps {
  private readonly running = new Map<string, number>();

  /** Runs `step` under `name` (names of steps running at once must differ). */
  async run<T>(name: string, step: () => Promise<T> | T): Promise<T> {
    this.running.set(name, Date.now());
    try {
      return await step();
    } finally {
      this.running.delete(name);
    }
  }

  /** The steps not finished, oldest first, each with how long it has run (`redis disconnect (1200 ms)`). */
  pending(now = Date.now()): string[] {
    return [...this.running].map(([name, since]) => `${name} (${now - since} ms)`);
  }
}

export interface ShutdownLog {
  log(message: string): void;
  error(message: string): void;
}

export interface ShutdownOptions {
  timeoutMs: number;
  steps: ShutdownSteps;
  log: ShutdownLog;
  /** Ends the process (tests give their own). */
  exit?: (code: number) => void;
  /** Where the signals come from (tests give an emitter of their own). */
  signals?: Pick<NodeJS.Process, 'on' | 'off'>;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
/**
 * A second signal this soon after the first is the same request arriving twice (a Ctrl-C reaches every process of the
 * terminal's group, and `npm start`'s supervisor passes it on too), not someone insisting: it does not cut the shutdown.
 */
export const REPEAT_WINDOW_MS = 1_000;

/**
 * Ends the process on SIGTERM or SIGINT within `timeoutMs`, whatever Redis and Postgres do: `app.close()` runs every
 * shutdown hook; if it has not finished by then, or a second signal arrives, the process exits at once with
 * `EXIT_CODE.forced`, the log naming the steps still running. Work left unfinished is retried by whoever owns it
 * (a BullMQ job found stalled, a client's request). A second signal cuts the shutdown only if it comes at least
 * REPEAT_WINDOW_MS after the first. Nest's own `enableShutdownHooks` is not used: it waits for the hooks without a
 * bound and ignores every signal after the first.
 */
export function exitOnSignals(app: INestApplicationContext, options: ShutdownOptions): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const source = options.signals ?? process;
  let closingSince: number | null = null;
  const notFinished = () => {
    const pending = options.steps.pending();
    return pending.length > 0 ? pending.join(', ') : 'the shutdown hooks';
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (closingSince !== null) {
      if (Date.now() - closingSince < REPEAT_WINDOW_MS) return;
      options.log.error(`${signal} again: exiting now (code ${EXIT_CODE.forced}) without waiting for ${notFinished()}`);
      return exit(EXIT_CODE.forced);
    }
    closingSince = Date.now();
    options.log.log(`${signal}: shutting down, for at most ${options.timeoutMs} ms`);
    const bound = setTimeout(() => {
      options.log.error(`shutdown did not finish within ${options.timeoutMs} ms (SHUTDOWN_TIMEOUT_MS): exiting (code ${EXIT_CODE.forced}); not finished: ${notFinished()}`);
      exit(EXIT_CODE.forced);
    }, options.timeoutMs);
    app.close().then(
      () => {
        clearTimeout(bound);
        exit(EXIT_CODE.clean);
      },
      (err: unknown) => {
        clearTimeout(bound);
        options.log.error(`shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
        exit(EXIT_CODE.forced);
      },
    );
  };
  for (const signal of SIGNALS) source.on(signal, onSignal);
  return () => {
    for (const signal of SIGNALS) source.off(signal, onSignal);
  };
}

/** `work`, or `'timeout'` once `ms` have passed (the timer does not keep the process alive). */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
