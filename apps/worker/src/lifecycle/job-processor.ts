import type { RedisClient } from '@tollgate/nest-infra';
import { type Job, Worker, type WorkerOptions } from 'bullmq';

/** The Worker options a processor may set: its connection and prefix are the worker's (BULL_CONNECTION, QUEUE_PREFIX). */
export type ProcessorOptions = Omit<WorkerOptions, 'connection' | 'prefix'>;

/**
 * What runs the jobs of one queue: a Nest provider of its feature module, run by a BullMQ Worker that WorkerLifecycle
 * makes and closes (the one way the worker runs jobs; the jobs themselves are added by ScheduleKeeper's schedulers).
 */
export interface JobProcessor {
  readonly queue: string;
  /** BullMQ's defaults where absent. */
  readonly options?: ProcessorOptions;
  process(job: Job): Promise<unknown>;
}

/** One BullMQ Worker per processor, on BullMQ's connection of this worker (BullMQ duplicates it for its blocking reads). */
export function bullWorkers(processors: readonly JobProcessor[], connection: RedisClient, prefix: string): Worker[] {
  return processors.map((p) => new Worker(p.queue, (job) => p.process(job), { ...p.options, connection, prefix }));
}
