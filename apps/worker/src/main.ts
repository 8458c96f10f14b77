import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ConfigError } from '@tollgate/domain';
import { Logger } from 'nestjs-pino';
import { loadWorkerConfig } from './config/config';
import { WorkerModule } from './worker.module';

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const app = await NestFactory.createApplicationContext(WorkerModule.register(config), { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  app.get(Logger).log('worker started');
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? `tollgate worker: ${err.message}` : err);
  process.exit(1);
});
