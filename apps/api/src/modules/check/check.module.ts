import { Module } from '@nestjs/common';
import { CheckController } from './check.controller';
import { CheckQuota } from './use-cases/check-quota.use-case';

@Module({ controllers: [CheckController], providers: [CheckQuota] })
export class CheckModule {}
