import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import type { RuleSet } from '@tollgate/domain';
import { effectivePolicies } from '@tollgate/rules';
import { Redis } from 'ioredis';
import { RuleSetSource } from '../alerts/rule-set-source';
import { WORKER_CONFIG, type WorkerConfig } from '../config/config';
import type { LoopSource, WatchedLoop } from '../health/worker-health';
import { PRISMA } from '../infra.module';
import { RegionCoordinator, type RegionLink } from './region-coordinator';

/** The ids of the tenants a policy that is one quota across regions applies to (and is not off). */
export function tenantsWithGlobalPolicies(ruleSet: RuleSet): string[] {
  return Object.values(ruleSet.tenants)
    .filter((t) => Object.values(effectivePolicies(ruleSet.policies, t.slug, t.plan)).some((p) => p.regionScope === 'global' && p.mode !== 'off'))
    .map((t) => t.id);
}

/**
 * Runs the region coordinator every REBALANCE_MS in the worker that coordinates (WorkerConfig.coordinator): one
 * connection to each region's Redis (commands time out after half the period and are not queued while a region is
 * away), the tenants of global policies from the newest rule set. A round that finds a region unreachable or back is
 * logged once per change, not every round. The worker's `/health` watches its rounds like webhook delivery's (a round
 * that met an unreachable region completed: that region's Redis is not this worker's to heal).
 */
@Injectable()
export class CoordinatorLoop implements OnApplicationBootstrap, BeforeApplicationShutdown, LoopSource {
  readonly loop: WatchedLoop;
  private roundListener: ((error: string | null) => void) | null = null;
  private readonly log = new Logger('RegionCoordinator');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private links: { name: string; client: Redis }[] = [];
  private coordinator: RegionCoordinator | null = null;
  private unreachable = new Set<string>();
  private tenants: { version: number; compiledAt: string; ids: string[] } | null = null;

  constructor(
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
    @Inject(PRISMA) private readonly prisma: PrismaClient,
  ) {
    this.loop = { name: 'region coordinator', everyMs: config.coordinator?.everyMs ?? 1000, round: 'rebalancing round' };
  }

  /** Whether this worker coordinates (only then is it a loop the health watches). */
  get enabled(): boolean {
    return this.config.coordinator !== null;
  }

  onRound(listener: (error: string | null) => void): void {
    this.roundListener = listener;
  }

  onApplicationBootstrap(): void {
    const settings = this.config.coordinator;
    if (!settings) return;
    const timeoutMs = Math.max(50, Math.floor(settings.everyMs / 2));
    this.links = settings.regions.map(({ name, url }) => ({
      name,
      client: new Redis(url, { commandTimeout: timeoutMs, connectTimeout: timeoutMs, enableOfflineQueue: false, maxRetriesPerRequest: 0 }),
    }));
    for (const link of this.links) link.client.on('error', () => undefined); // a region away is a round's news, not an error a second
    const source = new RuleSetSource(this.prisma);
    this.coordinator = new RegionCoordinator(this.links as RegionLink[], {
      tenants: async () => {
        const ruleSet = await source.current();
        if (!ruleSet) return [];
        if (this.tenants?.version !== ruleSet.version || this.tenants.compiledAt !== ruleSet.compiledAt) {
          this.tenants = { version: ruleSet.version, compiledAt: ruleSet.compiledAt, ids: tenantsWithGlobalPolicies(ruleSet) };
        }
        return this.tenants.ids;
      },
    });
    this.log.log(`coordinating quotas across regions ${settings.regions.map((r) => r.name).join(', ')} every ${settings.everyMs} ms`);
    this.schedule(settings.everyMs);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    for (const link of this.links) link.client.disconnect();
  }

  private schedule(everyMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.round().finally(() => {
        this.running = null;
        if (this.timer) this.schedule(everyMs);
      });
    }, everyMs);
  }

  private async round(): Promise<void> {
    try {
      const report = await this.coordinator!.round();
      const now = new Set(report.unreachable);
      for (const name of now) if (!this.unreachable.has(name)) this.log.warn(`region ${name}'s Redis does not answer: its allowances stay reserved for it`);
      for (const name of this.unreachable) if (!now.has(name)) this.log.log(`region ${name}'s Redis answers again`);
      this.unreachable = now;
      this.roundListener?.(null);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.log.error(`a rebalancing round failed: ${message}`);
      this.roundListener?.(message.split('\n')[0] ?? message);
    }
  }
}
