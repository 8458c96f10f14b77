import { Module } from '@nestjs/common';
import { TenantSelfController } from './tenant-self.controller';

@Module({ controllers: [TenantSelfController] })
export class TenantSelfModule {}
