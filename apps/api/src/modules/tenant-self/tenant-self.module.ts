import { Module } from '@nestjs/common';
import { LimitsInForceService } from './limits-in-force.service';
import { TenantCapsService } from './tenant-caps.service';
import { TenantSelfController } from './tenant-self.controller';

@Module({ controllers: [TenantSelfController], providers: [LimitsInForceService, TenantCapsService], exports: [LimitsInForceService, TenantCapsService] })
export class TenantSelfModule {}
