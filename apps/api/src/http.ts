import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { NestFactory } from '@nestjs/core';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import { answerClientError } from './common/client-error';
import { answerFrameworkError, ErrorFilter } from './common/error.filter';
import { EnforcementHttp } from './modules/check/enforcement-http';
import { enforcementOpenApiPaths } from './modules/check/enforcement.openapi';
import { withErrorAnswers } from './common/openapi-errors';
import type { ApiConfig } from './config/config';

/**
 * Builds the HTTP application (used by main.ts and by the tests, which listen on a free port). Logs go to stdout,
 * or to `logDestination` (tests read what is logged).
 */
export async function createApp(config: ApiConfig, { logDestination }: { logDestination?: DestinationStream } = {}): Promise<NestFastifyApplication> {
  const options = { bodyLimit: config.http.bodyLimitBytes, trustProxy: config.http.trustProxy, frameworkErrors: answerFrameworkError, clientErrorHandler: answerClientError };
  // The enforcement routes have a Fastify instance of their own on the same server (ADR 0007).
  const enforcement = new EnforcementHttp(options);
  const adapter = new FastifyAdapter({ ...options, serverFactory: enforcement.serverFactory() });
  // `bodyParser: false`: Nest would add a parser of `application/x-www-form-urlencoded` bodies (and its own JSON parser) at
  // start-up. Fastify's own JSON parser stays (the one the enforcement instance uses), so any body that is not JSON is a
  // 415 `unsupported_media_type` on every route.
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config, enforcement, logDestination), adapter, { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(Logger));
  const fastify = app.getHttpAdapter().getInstance();
  // JSON routes take JSON only: `text/plain` is a 415, not a string body.
  fastify.removeContentTypeParser('text/plain');
  app.useGlobalFilters(new ErrorFilter());

  const openApi = new DocumentBuilder()
    .setTitle('Tollgate API')
    .setDescription('Enforcement (`/v1/check`) and administration of plans, tenants and rule sets.')
    .setVersion('0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'service key (tg_…) or dashboard session (tg_sess_…)' })
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-tollgate-key', description: "forward-auth: the gateway's service key (header name: FORWARD_AUTH_SERVICE_KEY_HEADER)" }, 'gateway')
    .build();
  SwaggerModule.setup('docs', app, () => {
    const document = SwaggerModule.createDocument(app, openApi);
    const enforcement = enforcementOpenApiPaths();
    // The enforcement routes describe their own errors; /health answers its own body, never an error envelope.
    const own = new Set([...Object.keys(enforcement), '/health']);
    return withErrorAnswers({ ...document, paths: { ...enforcement, ...document.paths } }, { skip: (path) => own.has(path) });
  });
  return app;
}
