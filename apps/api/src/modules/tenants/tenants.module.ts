import { Module } from '@nestjs/common';
import { TenantsController } from './tenants.controller';
import { RemoveOverrideUseCase, SetOverrideUseCase } from './overrides.use-cases';
import { CreateTenantUseCase, DeleteTenantUseCase, UpdateTenantUseCase } from './tenants.use-cases';

@Module({ controllers: [TenantsController], providers: [CreateTenantUseCase, UpdateTenantUseCase, DeleteTenantUseCase, SetOverrideUseCase, RemoveOverrideUseCase] })
export class TenantsModule {}
