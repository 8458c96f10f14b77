import { Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsListener } from './metrics-listener';
import { MetricsService } from './metrics.service';

@Global()
@Module({ controllers: [MetricsController], providers: [MetricsService, MetricsListener], exports: [MetricsService] })
export class MetricsModule {}
