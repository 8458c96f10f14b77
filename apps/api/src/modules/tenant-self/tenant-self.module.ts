import { Module } from '@nestjs/common';
import { LimitsInForceService } from './limits-in-force.service';
import { TenantSelfController } from './tenant-self.controller';

@Module({ controllers: [TenantSelfController], providers: [LimitsInForceService], exports: [LimitsInForceService] })
export class TenantSelfModule {}
