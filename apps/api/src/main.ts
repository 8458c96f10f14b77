import 'reflect-metadata';
import { ConfigError } from '@tollgate/domain';
import { exitOnSignals, logDestination, ShutdownSteps } from '@tollgate/nest-infra';
import { Logger } from 'nestjs-pino';
import { loadApiConfig } from './config/config';
import { createApp } from './http';

async function main(): Promise<void> {
  const config = loadApiConfig();
  const app = await createApp(config, { logDestination: logDestination(config.log.format) });
  exitOnSignals(app, { timeoutMs: config.shutdown.timeoutMs, steps: app.get(ShutdownSteps), log: app.get(Logger) });
  await app.listen(config.http.port, config.http.host);
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? `tollgate api: ${err.message}` : err);
  process.exit(1);
});
