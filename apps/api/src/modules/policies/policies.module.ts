import { Module } from '@nestjs/common';
import { PoliciesController } from './policies.controller';
import { LimitsModule } from '../limits/limits.module';
import { CreatePolicyUseCase, DeletePolicyUseCase, UpdatePolicyUseCase } from './use-cases/policies.use-cases';

@Module({
  imports: [LimitsModule],
  controllers: [PoliciesController],
  providers: [CreatePolicyUseCase, UpdatePolicyUseCase, DeletePolicyUseCase],
})
export class PoliciesModule {}
