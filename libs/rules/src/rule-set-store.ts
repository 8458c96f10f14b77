import { join } from 'node:path';
import { ruleSetSchema, type RuleSet } from '@tollgate/domain';
import { LuaScript, type ScriptClient } from '@tollgate/limiter';

const putRuleSet = LuaScript.load(join(__dirname, 'lua'), 'put-rule-set');

/** Redis names of the distributed rule set; one hash tag so a cluster keeps them together. */
export const ruleSetKeys = {
  ruleSet: 'tg:{rules}:current',
  version: 'tg:{rules}:version',
  channel: 'tg:rules:changed',
} as const;

/** The Redis commands the store needs (ioredis `Redis` or `Cluster`). */
export interface RuleSetRedis extends ScriptClient {
  get(key: string): Promise<string | null>;
}

/** Where API nodes find the rule set in force, and how the control plane hands them a new one. */
export class RuleSetStore {
  constructor(private readonly redis: RuleSetRedis) {}

  /** Stores and announces `ruleSet` unless Redis already holds this version or a newer one. */
  async put(ruleSet: RuleSet): Promise<boolean> {
    const reply = await putRuleSet.run(
      this.redis,
      [ruleSetKeys.ruleSet, ruleSetKeys.version],
      [ruleSet.version, JSON.stringify(ruleSet), ruleSetKeys.channel],
    );
    return reply === 1;
  }

  async version(): Promise<number | null> {
    const raw = await this.redis.get(ruleSetKeys.version);
    return raw === null ? null : Number(raw);
  }

  /** The stored rule set, validated; null when Redis has none (flushed, restarted, never published). */
  async get(): Promise<RuleSet | null> {
    const raw = await this.redis.get(ruleSetKeys.ruleSet);
    return raw === null ? null : ruleSetSchema.parse(JSON.parse(raw));
  }
}
