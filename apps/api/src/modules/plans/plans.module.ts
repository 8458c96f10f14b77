import { Module } from '@nestjs/common';
import { PlansController } from './plans.controller';
import { UpdatePlanLimitUseCase } from './use-cases/update-plan-limit.use-case';

@Module({ controllers: [PlansController], providers: [UpdatePlanLimitUseCase] })
export class PlansModule {}
