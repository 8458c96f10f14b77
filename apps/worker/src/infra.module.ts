import type { DynamicModule } from '@nestjs/common';
import { InfraModule } from '@tollgate/nest-infra';
import { WORKER_CONFIG, type WorkerConfig } from './config/config';

export { PRISMA, REDIS } from '@tollgate/nest-infra';

/** The worker's config, Postgres (a small pool: jobs run a few at a time) and Redis. */
export function workerInfra(config: WorkerConfig): DynamicModule {
  return InfraModule.register({
    config: { token: WORKER_CONFIG, value: config },
    database: { url: config.database.url, poolSize: 4 },
    redis: { target: config.redis, options: { maxRetriesPerRequest: 3 } },
  });
}
