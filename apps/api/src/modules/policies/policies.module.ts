import { Module } from '@nestjs/common';
import { PoliciesController } from './policies.controller';
import { LimitsModule } from '../limits/limits.module';
import { PolicyLimitsController } from '../limits/limits.controller';
import { CreatePolicyUseCase, DeletePolicyUseCase, UpdatePolicyUseCase } from './use-cases/policies.use-cases';

@Module({
  imports: [LimitsModule],
  controllers: [PoliciesController, PolicyLimitsController],
  providers: [CreatePolicyUseCase, UpdatePolicyUseCase, DeletePolicyUseCase],
})
export class PoliciesModule {}
