import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { PRISMA } from '../../infra/infra.module';

/** The most keys remembered between two writes (a node only ever sees the keys of its rule set: far fewer). */
const MAX_KEYS = 100_000;

/**
 * When service and tenant keys were last used, recorded off the enforcement path (which never touches Postgres): a
 * check only adds its keys' ids to a set, and every `KEY_USAGE_FLUSH_MS` (a minute) one statement in the background
 * writes the ids seen since with the time of the write, so `lastUsedAt` is right to the interval and each key is
 * written at most once per interval. With Postgres away the write fails quietly, checks never wait for it, and the
 * ids are written with the next one (with the time they were seen). A last write on shutdown.
 */
@Injectable()
export class KeyUsage implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger(KeyUsage.name);
  /** Ids seen since the last write (a Set: adding a key already in it allocates nothing). */
  private readonly seen = new Set<string>();
  /** Ids of a write that failed, with when they were seen: written with the next one. */
  private readonly unwritten = new Map<string, Date>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), this.config.keys.usageFlushMs);
    this.timer.unref();
  }

  /** After the server stopped taking requests (Nest closes it before these hooks) and before Postgres is closed. */
  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  /** The key with this id was used now (on the enforcement path: one Set insertion). */
  used(keyId: string): void {
    if (this.seen.size < MAX_KEYS) this.seen.add(keyId);
  }

  /** Writes what was seen since the last write; a write already under way is shared. Never rejects. */
  flush(): Promise<void> {
    this.writing ??= this.write().finally(() => (this.writing = null));
    return this.writing;
  }

  private async write(): Promise<void> {
    const now = new Date();
    for (const id of this.seen) if (this.unwritten.size < MAX_KEYS || this.unwritten.has(id)) this.unwritten.set(id, now);
    this.seen.clear();
    if (this.unwritten.size === 0) return;
    const ids = [...this.unwritten.keys()];
    // Prisma's DateTime columns are `timestamp(3)` in UTC: ISO strings cast to it keep the UTC time as it is.
    const times = [...this.unwritten.values()].map((at) => at.toISOString());
    try {
      // Never back in time: an older time (a retried write) does not replace a newer one.
      await this.prisma.$executeRaw`
        update api_keys as k set last_used_at = greatest(k.last_used_at, u.at)
        from unnest(${ids}::uuid[], ${times}::timestamp(3)[]) as u(id, at)
        where k.id = u.id`;
      // Only write() touches `unwritten`, one at a time: nothing was added to it while the statement ran.
      this.unwritten.clear();
    } catch (err) {
      this.log.warn(`could not record when ${ids.length} key(s) were last used; retrying with the next write (${err instanceof Error ? err.message : String(err)})`);
    }
  }
}
