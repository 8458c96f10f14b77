import { Module } from '@nestjs/common';
import { PoliciesController } from './policies.controller';
import { AddPolicyLimitUseCase, RemovePolicyLimitUseCase, UpdatePolicyLimitUseCase } from './use-cases/policy-limits.use-cases';
import { CreatePolicyUseCase, DeletePolicyUseCase, UpdatePolicyUseCase } from './use-cases/policies.use-cases';

@Module({
  controllers: [PoliciesController],
  providers: [CreatePolicyUseCase, UpdatePolicyUseCase, DeletePolicyUseCase, AddPolicyLimitUseCase, UpdatePolicyLimitUseCase, RemovePolicyLimitUseCase],
})
export class PoliciesModule {}
