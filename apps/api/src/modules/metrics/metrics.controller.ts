import { Controller, Get, Header, Inject, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Access } from '../../common/access.decorator';
import type { RequestWithCaller } from '../../common/caller';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { MetricsAccess } from './metrics-access';
import { METRICS_CONTENT_TYPE } from './metrics-listener';
import { MetricsService } from './metrics.service';

@ApiExcludeController()
@Controller()
export class MetricsController {
  private readonly access: MetricsAccess;

  constructor(
    private readonly metrics: MetricsService,
    @Inject(API_CONFIG) config: ApiConfig,
  ) {
    this.access = new MetricsAccess(config.metrics);
  }

  /**
   * Prometheus scrape endpoint on the API's port. Public to the guard (no user or key of Tollgate's), but it names every
   * tenant and its traffic: it answers only a scrape with `Authorization: Bearer <METRICS_TOKEN>`, and is not served
   * here without a token or when `METRICS_PORT` gives it a listener of its own (MetricsAccess).
   */
  @Get('metrics')
  @Access('public')
  @Header('Content-Type', METRICS_CONTENT_TYPE)
  scrape(@Req() req: RequestWithCaller): Promise<string> {
    this.access.authorize(req, false);
    return this.metrics.registry.metrics();
  }
}
