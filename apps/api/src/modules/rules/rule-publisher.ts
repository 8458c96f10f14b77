import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import type { RuleSet } from '@tollgate/domain';
import { type ReconcileOutcome, RuleSetReconciler, RuleSetStore } from '@tollgate/rule-store';
import type { RedisClient } from '@tollgate/nest-infra';
import { describeError } from '../../common/describe-error';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { PRISMA, REDIS } from '../../infra/infra.module';
import { InstallationService } from './installation.service';
import { RulesInForce } from './rules-in-force';

/**
 * Keeps "Redis holds the newest rule set Postgres committed" true, and is the only writer of the rule set in Redis
 * (ADR 0008): after every commit, when this node starts, whenever its Redis connection is (re)established (a Redis
 * restarted empty, flushed, failed over) and every `RULES_RECONCILE_MS`. It lives in every API node's memory, not in
 * Redis, so nothing that happens to Redis can erase it; publishes are compare-and-set, so nodes never undo each other.
 */
@Injectable()
export class RulePublisher implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger(RulePublisher.name);
  private readonly reconciler: RuleSetReconciler;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** The last failure's message, logged once until a reconcile succeeds again. */
  private failing: string | null = null;
  private readonly onReady = () => void this.reconcile();

  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(PRISMA) prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: RedisClient,
    store: RuleSetStore,
    private readonly installation: InstallationService,
    private readonly cache: RulesInForce,
  ) {
    this.reconciler = new RuleSetReconciler(prisma, store);
  }

  async onModuleInit(): Promise<void> {
    await this.reconcile();
    await this.cache.start();
    this.redis.on('ready', this.onReady);
    this.timer = setInterval(() => void this.reconcile(), this.config.rules.reconcileMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.redis.off('ready', this.onReady);
  }

  /**
   * After a commit: Redis gets `ruleSet` (unless a newer committed version is there already) and this node enforces
   * it at once. Never throws: the version is committed; if Redis is away it is published when Redis is back.
   */
  async publish(ruleSet: RuleSet): Promise<void> {
    await this.reconcileNow(ruleSet);
    await this.cache.refresh();
    const installation = await this.installation.get();
    if (installation !== null) this.cache.adopt(ruleSet, installation);
  }

  /** A reconcile unless one is running (timer ticks and reconnections do not pile up). */
  private reconcile(): Promise<void> {
    this.running ??= this.reconcileNow().finally(() => (this.running = null));
    return this.running;
  }

  private async reconcileNow(committed?: RuleSet): Promise<void> {
    try {
      const installation = await this.installation.get();
      if (installation === null) throw new Error('Postgres did not answer (the installation id is unknown)');
      this.report(await this.reconciler.reconcile(installation, committed));
      if (this.failing !== null) this.log.log('the rule set in Redis is kept up to date again');
      this.failing = null;
    } catch (err) {
      // Bounded and secret-free: an error of Postgres or of a parse can carry what it was given (a whole rule set).
      const message = describeError(err).message;
      if (this.failing === null) this.log.warn(`cannot make Redis hold the newest rule set, retrying every ${this.config.rules.reconcileMs} ms: ${message}`);
      this.failing = message;
    }
  }

  private report(result: ReconcileOutcome): void {
    if (result.outcome !== 'published') return;
    const held = result.replaced
      ? `v${result.replaced.version}${result.reason === 'foreign' ? ` of another installation (${result.replaced.installation})` : result.reason === 'not-committed' ? ', which Postgres never committed' : ''}`
      : result.reason === 'unreadable'
        ? 'something unreadable'
        : 'nothing';
    const log = result.reason === 'older' || result.reason === 'missing' ? 'log' : 'warn';
    this.log[log](`published rule set v${result.version} to Redis (it held ${held})`);
  }
}
