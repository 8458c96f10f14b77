import { Module } from '@nestjs/common';
import { PlansController } from './plans.controller';
import { LimitsModule } from '../limits/limits.module';
import { CreatePlanUseCase, DeletePlanUseCase, UpdatePlanUseCase } from './use-cases/plans.use-cases';

@Module({
  imports: [LimitsModule],
  controllers: [PlansController],
  providers: [CreatePlanUseCase, UpdatePlanUseCase, DeletePlanUseCase],
})
export class PlansModule {}
