import type { PrismaClient } from '@tollgate/db';
import type { RuleSet } from '@tollgate/domain';
import { parseRevision, type RuleSetRevision, type RuleSetStore } from './rule-set-store';
import { isCommitted, newestOrFirstRuleSet, newestVersion } from './versions';

/** What a reconcile found in Redis and did about it. */
export type ReconcileOutcome =
  /** Redis holds the newest committed version already. */
  | { outcome: 'in-sync'; version: number }
  /** Redis holds a version committed after the one this reconcile was asked to publish: nothing to do. */
  | { outcome: 'newer-in-redis'; version: number }
  /** Redis held `replaced` (or nothing), for `reason`; it now holds `version`. */
  | { outcome: 'published'; version: number; replaced: RuleSetRevision | null; reason: ReplaceReason };

/**
 * Why Redis's rule set was replaced: nothing there (a new, restarted or flushed Redis), an older version of this
 * installation, another installation's rule set, or one Postgres never committed (Postgres was restored from a
 * backup older than Redis's version, or Redis holds a version of the same number from before the restore).
 */
export type ReplaceReason = 'missing' | 'unreadable' | 'older' | 'foreign' | 'not-committed';

/** Another publisher wrote between our read and our write this many times in a row: give up until the next call. */
const MAX_ATTEMPTS = 5;

/**
 * The one writer of the rule set in Redis: makes Redis hold the newest version Postgres committed, for this
 * installation, and announces it. Called after every commit and by a timer and on every reconnection of each API
 * node (RulePublisher), so that whatever happened to Redis — restarted empty, flushed, failed over, shared with
 * another installation, or ahead of a Postgres restored from a backup — it holds Postgres's newest again within
 * seconds. Nothing of it lives in Redis, so nothing of it is lost with Redis. Every write is a compare-and-set on
 * the revision it read, so concurrent publishers never move Redis back.
 */
export class RuleSetReconciler {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly store: RuleSetStore,
  ) {}

  /**
   * `committed`: a version this caller just committed (saves reading it back from Postgres); without it, the newest
   * committed version is read (version 1 is compiled on a database without any).
   */
  async reconcile(installation: string, committed?: RuleSet): Promise<ReconcileOutcome> {
    let known = committed;
    for (let attempt = 1; ; attempt += 1) {
      // Redis first, then Postgres: a version in Redis was committed before it was published, so a newer one found
      // in Redis is also in the Postgres read that follows.
      const raw = await this.store.rawRevision();
      const stored = parseRevision(raw);
      const newest = known ?? (await newestVersion(this.prisma)) ?? (known = await newestOrFirstRuleSet(this.prisma, 'system'));
      const reason = await this.replaceReason(installation, raw, stored, newest);
      if (reason === 'in-sync') return { outcome: 'in-sync', version: newest.version };
      if (reason === 'newer-in-redis') return { outcome: 'newer-in-redis', version: stored!.version };
      const ruleSet = known ?? (await newestOrFirstRuleSet(this.prisma, 'system'));
      if (await this.store.put(ruleSet, installation, raw)) return { outcome: 'published', version: ruleSet.version, replaced: stored, reason };
      if (attempt >= MAX_ATTEMPTS) throw new Error(`the rule set in Redis changed under ${MAX_ATTEMPTS} publishes in a row`);
      known = undefined; // someone else published in between: decide again on what Postgres has now
    }
  }

  private async replaceReason(
    installation: string,
    raw: string | null,
    stored: RuleSetRevision | null,
    newest: { version: number; compiledAt: string },
  ): Promise<ReplaceReason | 'in-sync' | 'newer-in-redis'> {
    if (raw === null) return 'missing';
    if (!stored) return 'unreadable';
    if (stored.installation !== installation) return 'foreign';
    if (stored.version === newest.version && stored.compiledAt === newest.compiledAt) return 'in-sync';
    if (stored.version > newest.version && (await isCommitted(this.prisma, stored.version, stored.compiledAt))) return 'newer-in-redis';
    if (stored.version < newest.version && (await isCommitted(this.prisma, stored.version, stored.compiledAt))) return 'older';
    return 'not-committed';
  }
}
