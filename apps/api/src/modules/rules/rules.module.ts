import { Global, Module } from '@nestjs/common';
import { InstallationService } from './installation.service';
import { RuleCache } from './rule-cache.service';
import { RuleChangeService } from './rule-change.service';
import { RulePublisher } from './rule-publisher.service';
import { RuleSetsController } from './rule-sets.controller';
import { RestoreRuleSetUseCase } from './use-cases/restore-rule-set.use-case';

@Global()
@Module({ controllers: [RuleSetsController], providers: [InstallationService, RuleCache, RulePublisher, RuleChangeService, RestoreRuleSetUseCase], exports: [RuleCache, RulePublisher, RuleChangeService] })
export class RulesModule {}
