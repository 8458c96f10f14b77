import { Module } from '@nestjs/common';
import { PlansController } from './plans.controller';
import { LimitsModule } from '../limits/limits.module';
import { PlanLimitsController } from '../limits/limits.controller';
import { CreatePlanUseCase, DeletePlanUseCase, UpdatePlanUseCase } from './use-cases/plans.use-cases';

@Module({
  imports: [LimitsModule],
  controllers: [PlansController, PlanLimitsController],
  providers: [CreatePlanUseCase, UpdatePlanUseCase, DeletePlanUseCase],
})
export class PlansModule {}
