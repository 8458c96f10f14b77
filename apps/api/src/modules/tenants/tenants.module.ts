import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits/limits.module';
import { TenantSelfModule } from '../tenant-self/tenant-self.module';
import { TenantsController } from './tenants.controller';
import { CreateTenantUseCase, DeleteTenantUseCase, UpdateTenantUseCase } from './use-cases/tenants.use-cases';

@Module({ imports: [LimitsModule, TenantSelfModule], controllers: [TenantsController], providers: [CreateTenantUseCase, UpdateTenantUseCase, DeleteTenantUseCase] })
export class TenantsModule {}
