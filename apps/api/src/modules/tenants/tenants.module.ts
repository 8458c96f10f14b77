import { Module } from '@nestjs/common';
import { TenantsController } from './tenants.controller';
import { CreateTenantUseCase, UpdateTenantUseCase } from './tenants.use-cases';

@Module({ controllers: [TenantsController], providers: [CreateTenantUseCase, UpdateTenantUseCase] })
export class TenantsModule {}
