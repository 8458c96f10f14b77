import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits/limits.module';
import { TenantsController } from './tenants.controller';
import { CreateTenantUseCase, DeleteTenantUseCase, UpdateTenantUseCase } from './use-cases/tenants.use-cases';

@Module({ imports: [LimitsModule], controllers: [TenantsController], providers: [CreateTenantUseCase, UpdateTenantUseCase, DeleteTenantUseCase] })
export class TenantsModule {}
