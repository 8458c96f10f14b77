import { Module } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import { PostgresUsageReader } from '@tollgate/usage';
import { PRISMA } from '../../infra/infra.module';
import { OwnUsageController, UsageController } from './usage.controller';
import { DegradedUsageUseCase } from './use-cases/degraded.use-case';
import { WouldDenyUseCase } from './use-cases/would-deny.use-case';
import { DenialSamplesUseCase, USAGE_READER, UsageExportUseCase, UsageNames, UsageRoutesUseCase, UsageSeriesUseCase, UsageSummaryUseCase, UsageTopUseCase } from './use-cases/usage.use-cases';

@Module({
  controllers: [UsageController, OwnUsageController],
  providers: [
    { provide: USAGE_READER, inject: [PRISMA], useFactory: (prisma: PrismaClient) => new PostgresUsageReader(prisma) },
    UsageNames,
    UsageSeriesUseCase,
    UsageTopUseCase,
    UsageSummaryUseCase,
    UsageRoutesUseCase,
    DenialSamplesUseCase,
    UsageExportUseCase,
    WouldDenyUseCase,
    DegradedUsageUseCase,
  ],
})
export class UsageModule {}
