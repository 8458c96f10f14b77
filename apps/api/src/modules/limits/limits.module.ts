import { Module } from '@nestjs/common';
import { AddLimitUseCase, RemoveLimitUseCase, UpdateLimitUseCase } from './use-cases/owner-limits.use-cases';

const useCases = [AddLimitUseCase, UpdateLimitUseCase, RemoveLimitUseCase];

/** The limits of plans, endpoint policies and tenants (overrides): one set of use-cases for the three owners. */
@Module({ providers: useCases, exports: useCases })
export class LimitsModule {}
