import type { PrismaClient } from '@tollgate/db';
import type { RuleSet } from '@tollgate/domain';
import { latestRuleSet, newestVersion } from '@tollgate/rule-store';

/**
 * The newest committed rule set, from Postgres (the nodes enforce it from Redis a moment later): its number is read
 * every time (a small read), the rule set itself only when the number or the compile changed.
 */
export class RuleSetSource {
  private cached: { version: number; compiledAt: string; ruleSet: RuleSet } | null = null;

  constructor(private readonly prisma: PrismaClient) {}

  async current(): Promise<RuleSet | null> {
    const newest = await newestVersion(this.prisma);
    if (!newest) return null;
    if (this.cached?.version === newest.version && this.cached.compiledAt === newest.compiledAt) return this.cached.ruleSet;
    const ruleSet = await latestRuleSet(this.prisma);
    if (!ruleSet) return null;
    this.cached = { version: ruleSet.version, compiledAt: ruleSet.compiledAt, ruleSet };
    return ruleSet;
  }
}
