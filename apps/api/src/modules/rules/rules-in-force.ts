import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { AppError, ErrorCode, type CompiledServiceKey, type RuleSet } from '@tollgate/domain';
import { type PrismaClient, secretHash } from '@tollgate/db';
import { isCommitted, revisionOf, ruleSetKeys, type RuleSetRevision, RuleSetStore, sameRevision } from '@tollgate/rule-store';
import { duplicateClient, type RedisClient } from '@tollgate/nest-infra';
import { describeError } from '../../common/describe-error';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { PRISMA, REDIS } from '../../infra/infra.module';
import { MetricsService } from '../metrics/metrics.service';
import { EnforcedRuleSet } from './enforced-rule-set';
import { InstallationService } from './installation.service';
import { ReplicaAckCoverageService } from './replica-ack-coverage';
import { publishRefusal } from './rule-set-refused-event';

/** Why the rule set in Redis is not enforced by this node. */
export interface RuleSetRefusal {
  /** Another installation's (a Redis shared with, or left over from, another database), or one Postgres never committed. */
  reason: 'foreign' | 'not-committed';
  redis: RuleSetRevision;
}

/**
 * The rule set this node enforces, held in memory. A new revision in Redis is announced on a channel and polled
 * for every `RULES_POLL_MS` (a missed announcement, a Redis that came back); it is enforced only if this
 * installation committed it (ADR 0008): another installation's rule set, or a version Postgres does not have, is
 * refused and reported by /health, and RulePublisher replaces it. The hot path only reads memory.
 */
@Injectable()
export class RulesInForce implements OnApplicationShutdown {
  private readonly log = new Logger(RulesInForce.name);
  private enforcedSet: EnforcedRuleSet | null = null;
  private refusal: RuleSetRefusal | null = null;
  private subscriber: RedisClient | null = null;
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private loadFailing = false;

  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly store: RuleSetStore,
    private readonly installation: InstallationService,
    private readonly metrics: MetricsService,
    private readonly replicaAck: ReplicaAckCoverageService,
  ) {}

  /** Loads what Redis holds, then follows its announcements and polls it (RulePublisher calls this once at start). */
  async start(): Promise<void> {
    await this.refresh();
    this.subscriber = duplicateClient(this.redis, { enableOfflineQueue: true, commandTimeout: undefined });
    this.subscriber.on('message', () => void this.refresh());
    this.subscriber.on('error', () => undefined); // reconnects by itself; the poll covers the gap
    await this.subscriber.subscribe(ruleSetKeys.channel).catch(() => undefined);
    this.timer = setInterval(() => void this.refresh(), this.config.rules.pollMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.subscriber?.disconnect();
  }

  /** The rule set in force, as checks use it (one lookup a check); 503 `rules_not_loaded` before the first one arrived. */
  enforced(): EnforcedRuleSet {
    if (!this.enforcedSet) throw new AppError(ErrorCode.RULES_NOT_LOADED, 'no rule set loaded yet; retry shortly');
    return this.enforcedSet;
  }

  /** The rule set in force, as compiled; 503 `rules_not_loaded` before the first one arrived. */
  current(): RuleSet {
    return this.enforced().ruleSet;
  }

  version(): number | null {
    return this.enforcedSet?.version ?? null;
  }

  /** The revision this node enforces, and why Redis's is refused (if it is): for /health. */
  status(): { enforcing: RuleSetRevision | null; refusal: RuleSetRefusal | null } {
    return { enforcing: this.enforcedSet?.revision ?? null, refusal: this.refusal };
  }

  /**
   * SHA-256 of recently seen keys (service keys, tenant keys in checks), as the rule set indexes them. A pure
   * function of the key, so nothing here outlives a revocation: the hash is looked up in the rule set in force on
   * every request. Bounded: cleared when full, and only strings as long as a key can be are remembered (any
   * bearer token reaches here: 10,000 remembered 16 KB tokens would hold 160 MB).
   */
  private readonly keyHashes = new Map<string, string>();

  keyHash(key: string): string {
    let hash = this.keyHashes.get(key);
    if (hash === undefined) {
      hash = secretHash(key);
      if (key.length > KEY_HASH_CACHE_MAX_KEY_CHARS) return hash;
      if (this.keyHashes.size >= KEY_HASH_CACHE_SIZE) this.keyHashes.clear();
      this.keyHashes.set(key, hash);
    }
    return hash;
  }

  /** How many key hashes are remembered now (bounded by KEY_HASH_CACHE_SIZE). */
  keyHashCacheSize(): number {
    return this.keyHashes.size;
  }

  /** The service key with this SHA-256 hash, if it exists in the rule set in force. */
  serviceKey(hash: string): CompiledServiceKey | undefined {
    return this.enforcedSet?.serviceKey(hash);
  }

  /** What the endpoint cache of the rule set in force holds now (its bounds: ENDPOINT_CACHE_* of enforced-rule-set.ts). */
  endpointCacheSize(): { entries: number; keyChars: number } {
    return this.enforcedSet?.endpointCacheSize() ?? { entries: 0, keyChars: 0 };
  }

  /** Enforces what Redis holds if it changed and this installation committed it. Concurrent calls share one load. */
  refresh(): Promise<void> {
    this.refreshing ??= this.load().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /**
   * Enforces `ruleSet`, which this node has just committed, unless a newer version of this installation is in force
   * already: the committing node does not wait for Redis (which may be away) to enforce its own change.
   */
  adopt(ruleSet: RuleSet, installation: string): void {
    const revision = this.enforcedSet?.revision;
    if (revision?.installation === installation && revision.version >= ruleSet.version) return;
    this.swap({ ...ruleSet, installation }, revisionOf(ruleSet, installation));
  }

  private async load(): Promise<void> {
    try {
      const installation = await this.installation.get();
      const enforcing = this.enforcedSet?.revision ?? null;
      if (installation !== null && enforcing && enforcing.installation !== installation) this.drop(installation);
      const stored = await this.store.revision();
      this.loadFailing = false;
      // Nothing in Redis (restarted empty, flushed): keep enforcing what we have; RulePublisher puts it back.
      if (!stored || sameRevision(stored, this.enforcedSet?.revision ?? null)) {
        this.refusal = null;
        return;
      }
      if (this.refusal && sameRevision(this.refusal.redis, stored)) return; // refused already
      const next = await this.store.get();
      if (!next) return;
      const revision = revisionOf(next, next.installation ?? '');
      const reason = await this.refusalReason(installation, revision);
      if (reason) return this.refuse({ reason, redis: revision }, installation);
      this.swap(next, revision);
    } catch (err) {
      // Redis away: keep enforcing the rule set in memory (said once, not on every poll).
      if (!this.loadFailing) this.log.warn(`could not read the rule set from Redis, enforcing what is in memory: ${describeError(err).message}`);
      this.loadFailing = true;
    }
  }

  /**
   * Null when this installation committed `revision`. Without Postgres (unreachable now, or since this node started)
   * only the installation can be checked: the version is believed, and checked again when Postgres answers.
   */
  private async refusalReason(installation: string | null, revision: RuleSetRevision): Promise<RuleSetRefusal['reason'] | null> {
    if (installation === null) return null;
    if (revision.installation !== installation) return 'foreign';
    try {
      return (await isCommitted(this.prisma, revision.version, revision.compiledAt)) ? null : 'not-committed';
    } catch {
      return null;
    }
  }

  private refuse(refusal: RuleSetRefusal, installation: string | null): void {
    this.refusal = refusal;
    const what = refusal.reason === 'foreign' ? `of installation ${refusal.redis.installation}, not this one (${installation})` : 'that Postgres never committed';
    this.log.error(`Redis holds rule set v${refusal.redis.version} ${what}: not enforced (${this.enforcedSet ? `v${this.enforcedSet.version} stays in force` : 'none in force'}); the publisher replaces it`);
    // Operators' endpoints hear of it too (once, whichever nodes refuse it); without Postgres, the log above says it.
    publishRefusal(this.prisma, refusal, this.enforcedSet?.version ?? null).catch((err: unknown) =>
      this.log.warn(`the rule set refusal could not be published as an event: ${describeError(err)}`),
    );
  }

  /** The rule set in force turned out to be another installation's (loaded while Postgres could not say): stop enforcing it. */
  private drop(installation: string): void {
    const dropped = this.enforcedSet?.revision;
    this.log.error(`the rule set in force (v${dropped?.version}) is of installation ${dropped?.installation}, not this one (${installation}): dropped`);
    this.enforcedSet = null;
  }

  private swap(next: RuleSet, revision: RuleSetRevision): void {
    this.enforcedSet = new EnforcedRuleSet(next, revision, this.config.failover.localNodes, this.config.region);
    this.refusal = null;
    this.metrics.ruleVersion.set(next.version);
    this.log.log(`rule set v${next.version} in force`);
    // Said once per load, not per check: policies that wait for replicas Redis does not have.
    this.replicaAck.ruleSetLoaded(next).catch((err: unknown) => this.log.warn(`could not tell whether Redis has the replicas replicaAck policies wait for: ${describeError(err).message}`));
  }
}

/** The limits of one decision for the engine, each one's window in seconds (for answers). */
/** The most key hashes remembered at once. */
const KEY_HASH_CACHE_SIZE = 10_000;

/** Keys are well under this (`tg_live_s_` + 32 random bytes in base64url + a checksum); anything longer is not one. */
const KEY_HASH_CACHE_MAX_KEY_CHARS = 128;
