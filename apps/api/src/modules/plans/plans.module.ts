import { Module } from '@nestjs/common';
import { PlansController } from './plans.controller';
import { LimitsModule } from '../limits/limits.module';
import { TenantSelfModule } from '../tenant-self/tenant-self.module';
import { PlanLimitsController } from '../limits/limits.controller';
import { CreatePlanUseCase, DeletePlanUseCase, UpdatePlanUseCase } from './use-cases/plans.use-cases';

@Module({
  imports: [LimitsModule, TenantSelfModule],
  controllers: [PlansController, PlanLimitsController],
  providers: [CreatePlanUseCase, UpdatePlanUseCase, DeletePlanUseCase],
})
export class PlansModule {}
