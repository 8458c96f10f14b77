import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import Fastify, { type FastifyInstance } from 'fastify';
import { replyWithError } from '../../common/error.filter';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { MetricsAccess } from './metrics-access';
import { MetricsService } from './metrics.service';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * `/metrics` on a listener of its own (`METRICS_HOST`:`METRICS_PORT`) when one is configured, so that the scrape can
 * stay on a private interface while the API faces clients; `METRICS_TOKEN` is asked for here too when set. It serves
 * nothing else. Without `METRICS_PORT` nothing listens here and `/metrics` is on the API's port (MetricsController).
 */
@Injectable()
export class MetricsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger(MetricsListener.name);
  private fastify: FastifyInstance | null = null;

  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    private readonly metrics: MetricsService,
  ) {}

  /** Where it listens (its port, once listening), or null when `/metrics` is on the API's port. */
  address(): { host: string; port: number } | null {
    const address = this.fastify?.server.address();
    return address && typeof address === 'object' ? { host: address.address, port: address.port } : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { listener } = this.config.metrics;
    if (listener === null) return;
    const access = new MetricsAccess(this.config.metrics);
    const fastify = Fastify();
    fastify.setErrorHandler((err, _req, reply) => replyWithError(this.log, reply, err));
    fastify.setNotFoundHandler((req, reply) => replyWithError(this.log, reply, new AppError(ErrorCode.NOT_FOUND, `Cannot ${req.method} ${req.url}`)));
    fastify.get('/metrics', async (req, reply) => {
      access.authorize(req, true);
      return reply.type(METRICS_CONTENT_TYPE).send(await this.metrics.registry.metrics());
    });
    await fastify.listen({ host: listener.host, port: listener.port });
    this.fastify = fastify;
    this.log.log(`metrics on http://${listener.host}:${listener.port}/metrics${this.config.metrics.token ? ' (bearer token)' : ''}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.fastify?.close();
  }
}
