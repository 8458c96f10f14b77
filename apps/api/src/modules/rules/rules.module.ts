import { Global, Module } from '@nestjs/common';
import { InstallationService } from './installation.service';
import { ReplicaAckCoverageService } from './replica-ack-coverage';
import { RulesInForce } from './rules-in-force';
import { RuleChangeService } from './rule-change.service';
import { RulePublisher } from './rule-publisher';
import { RuleSetsController } from './rule-sets.controller';
import { RestoreRuleSetUseCase } from './use-cases/restore-rule-set.use-case';

@Global()
@Module({ controllers: [RuleSetsController], providers: [InstallationService, RulesInForce, ReplicaAckCoverageService, RulePublisher, RuleChangeService, RestoreRuleSetUseCase], exports: [RulesInForce, RulePublisher, RuleChangeService, ReplicaAckCoverageService] })
export class RulesModule {}
