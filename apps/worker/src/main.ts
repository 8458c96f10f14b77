import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ConfigError } from '@tollgate/domain';
import { exitOnSignals, ShutdownSteps } from '@tollgate/nest-infra';
import { Logger } from 'nestjs-pino';
import { loadWorkerConfig } from './config/config';
import { readEvictionPolicy } from './usage/eviction-policy';
import { WorkerModule } from './worker.module';

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  // Before any job is taken: on a Redis that evicts keys, usage counts and queued jobs would vanish without a trace.
  const eviction = await readEvictionPolicy(config.redis);
  if (eviction.kind === 'evicts') {
    console.error(
      `tollgate worker: Redis maxmemory-policy is ${eviction.policy}; set it to noeviction (maxmemory-policy noeviction in redis.conf, ` +
        'or CONFIG SET maxmemory-policy noeviction): a Redis that evicts keys drops usage counts before they are rolled up and BullMQ jobs',
    );
    process.exit(1);
  }
  const app = await NestFactory.createApplicationContext(WorkerModule.register(config), { bufferLogs: true });
  app.useLogger(app.get(Logger));
  exitOnSignals(app, { timeoutMs: config.shutdown.timeoutMs, steps: app.get(ShutdownSteps), log: app.get(Logger) });
  if (eviction.kind === 'unknown') {
    app.get(Logger).warn(`could not read Redis's maxmemory-policy (${eviction.reason}); make sure it is noeviction, or usage counts and jobs may be evicted`);
  }
  app.get(Logger).log('worker started');
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? `tollgate worker: ${err.message}` : err);
  process.exit(1);
});
