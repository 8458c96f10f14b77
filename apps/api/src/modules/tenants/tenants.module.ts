import { Module } from '@nestjs/common';
import { TenantsController } from './tenants.controller';
import { RemoveOverrideUseCase, SetOverrideUseCase } from './overrides.use-cases';
import { CreateTenantUseCase, UpdateTenantUseCase } from './tenants.use-cases';

@Module({ controllers: [TenantsController], providers: [CreateTenantUseCase, UpdateTenantUseCase, SetOverrideUseCase, RemoveOverrideUseCase] })
export class TenantsModule {}
