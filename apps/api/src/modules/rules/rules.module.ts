import { Global, Module } from '@nestjs/common';
import { RuleCache } from './rule-cache.service';
import { RuleChangeService } from './rule-change.service';
import { RulePublisher } from './rule-publisher.service';
import { RuleSetsController } from './rule-sets.controller';

@Global()
@Module({ controllers: [RuleSetsController], providers: [RuleCache, RulePublisher, RuleChangeService], exports: [RuleCache, RulePublisher, RuleChangeService] })
export class RulesModule {}
