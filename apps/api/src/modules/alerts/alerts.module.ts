import { Module } from '@nestjs/common';
import { TenantSelfModule } from '../tenant-self/tenant-self.module';
import { AlertRulesController } from './alert-rules.controller';
import { AlertsController, OwnAlertsController } from './alerts.controller';
import { AcknowledgeAlertUseCase, SilenceAlertRuleUseCase } from './use-cases/alert-attention.use-cases';
import { CreateAlertRuleUseCase, DeleteAlertRuleUseCase, UpdateAlertRuleUseCase } from './use-cases/alert-rules.use-cases';

/** Alert rules and the alert history (docs/adr/0018-alerts.md); the worker evaluates the rules. */
@Module({
  imports: [TenantSelfModule],
  controllers: [AlertRulesController, AlertsController, OwnAlertsController],
  providers: [CreateAlertRuleUseCase, UpdateAlertRuleUseCase, DeleteAlertRuleUseCase, AcknowledgeAlertUseCase, SilenceAlertRuleUseCase],
})
export class AlertsModule {}
