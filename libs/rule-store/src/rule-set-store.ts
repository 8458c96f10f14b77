import { join } from 'node:path';
import { ruleSetSchema, type RuleSet } from '@tollgate/domain';
import { LuaScript, type ScriptClient } from '@tollgate/lua-script';

const putRuleSet = LuaScript.load(join(__dirname, 'lua'), 'put-rule-set');

/** Redis names of the distributed rule set; one hash tag so a cluster keeps them together. */
export const ruleSetKeys = {
  ruleSet: 'tg:{rules}:current',
  version: 'tg:{rules}:version',
  /** `<installation>/<version>/<compiledAt>`: which database made the stored rule set, and which compile of it. */
  revision: 'tg:{rules}:revision',
  channel: 'tg:rules:changed',
} as const;

/**
 * Which rule set a store holds: the installation (database) that made it, its version there, and when it was
 * compiled — two databases, or one restored from a backup, can both have a version 12, never the same compile.
 */
export interface RuleSetRevision {
  installation: string;
  version: number;
  compiledAt: string;
}

export function revisionOf(ruleSet: Pick<RuleSet, 'version' | 'compiledAt'>, installation: string): RuleSetRevision {
  return { installation, version: ruleSet.version, compiledAt: ruleSet.compiledAt };
}

export function sameRevision(a: RuleSetRevision | null, b: RuleSetRevision | null): boolean {
  return a === b || (a !== null && b !== null && a.installation === b.installation && a.version === b.version && a.compiledAt === b.compiledAt);
}

export function formatRevision(r: RuleSetRevision): string {
  return `${r.installation}/${r.version}/${r.compiledAt}`;
}

/** The stored revision, or null when there is none or it is not one (written by hand, or by an older Tollgate). */
export function parseRevision(raw: string | null): RuleSetRevision | null {
  const parts = raw?.split('/');
  if (parts?.length !== 3) return null;
  const [installation, version, compiledAt] = parts as [string, string, string];
  return installation && /^[1-9][0-9]{0,9}$/.test(version) && compiledAt ? { installation, version: Number(version), compiledAt } : null;
}

/** The Redis commands the store needs (ioredis `Redis` or `Cluster`). */
export interface RuleSetRedis extends ScriptClient {
  get(key: string): Promise<string | null>;
}

/**
 * Where API nodes find the rule set to enforce. Only the publisher (RuleSetReconciler) writes here, and only
 * what Postgres committed; nodes read the revision often (it is small) and the rule set when the revision changed.
 */
export class RuleSetStore {
  constructor(private readonly redis: RuleSetRedis) {}

  /**
   * Stores `ruleSet` stamped with `installation`, and announces it, if the stored revision is still `expected`
   * (as `rawRevision()` read it; null: none stored). False when another publisher wrote in between.
   */
  async put(ruleSet: RuleSet, installation: string, expected: string | null): Promise<boolean> {
    const reply = await putRuleSet.run(
      this.redis,
      [ruleSetKeys.ruleSet, ruleSetKeys.version, ruleSetKeys.revision],
      [ruleSet.version, JSON.stringify({ ...ruleSet, installation }), ruleSetKeys.channel, formatRevision(revisionOf(ruleSet, installation)), expected ?? ''],
    );
    return reply === 1;
  }

  /** The stored revision as it is written (null: none), for `put`'s compare-and-set. */
  rawRevision(): Promise<string | null> {
    return this.redis.get(ruleSetKeys.revision);
  }

  async revision(): Promise<RuleSetRevision | null> {
    return parseRevision(await this.rawRevision());
  }

  /** The stored rule set, validated; null when Redis has none (flushed, restarted, never published). */
  async get(): Promise<RuleSet | null> {
    const raw = await this.redis.get(ruleSetKeys.ruleSet);
    return raw === null ? null : ruleSetSchema.parse(JSON.parse(raw));
  }
}
