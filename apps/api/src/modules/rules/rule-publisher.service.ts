import { Injectable, Logger } from '@nestjs/common';
import type { RuleSet } from '@tollgate/domain';
import { RuleSetStore } from '@tollgate/rules';
import { RuleCache } from './rule-cache.service';

/** Hands a committed rule set version to every API node (Redis + announcement), and to this node at once. */
@Injectable()
export class RulePublisher {
  private readonly log = new Logger(RulePublisher.name);

  constructor(
    private readonly store: RuleSetStore,
    private readonly cache: RuleCache,
  ) {}

  /**
   * Never throws: the version is already committed in Postgres. If Redis is away, the worker's
   * scheduled re-publish pushes it as soon as Redis is back.
   */
  async publish(ruleSet: RuleSet): Promise<void> {
    try {
      await this.store.put(ruleSet);
      await this.cache.refresh();
    } catch (err) {
      this.log.warn(`rule set v${ruleSet.version} committed but not yet pushed to Redis: ${String(err)}`);
    }
  }
}
