import { Module } from '@nestjs/common';
import { PlansController } from './plans.controller';
import { AddPlanLimitUseCase, RemovePlanLimitUseCase, UpdatePlanLimitUseCase } from './use-cases/plan-limits.use-cases';
import { CreatePlanUseCase, DeletePlanUseCase, UpdatePlanUseCase } from './use-cases/plans.use-cases';

@Module({
  controllers: [PlansController],
  providers: [CreatePlanUseCase, UpdatePlanUseCase, DeletePlanUseCase, AddPlanLimitUseCase, UpdatePlanLimitUseCase, RemovePlanLimitUseCase],
})
export class PlansModule {}
