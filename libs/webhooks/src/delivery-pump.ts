import type { PrismaClient } from '@tollgate/db';
import { type ClaimedAttempt, claimDueAttempts, releaseClaims } from './claims';
import type { WebhookClock } from './clock';
import type { WebhookDeliverer } from './deliverer';
import { type PlannedOutcome, planOutcome, recordOutcomes } from './outcomes';

export interface PumpOptions {
  /** Attempts one worker has in flight at once (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** How often an idle worker looks for due deliveries (WEBHOOK_DISPATCH_EVERY_MS). */
  pollEveryMs: number;
  /** The longest one attempt may take (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** The margin after which another worker may take over a claim of a worker that stopped (WEBHOOK_JOB_LOCK_MS). */
  graceMs: number;
  clock: WebhookClock;
  random?: () => number;
  /** Told when an endpoint is disabled for failing (its owner sees the reason in the API). */
  onDisabled?: (endpointId: string, reason: string) => void;
  onError: (message: string) => void;
  /**
   * Told of each round of the loop: `null` when it completed one (a claim went through, or the batch at hand needed
   * none), the error when a claim failed. A loop that stopped, or whose claims hang, tells nothing (the worker's health).
   */
  onRound?: (error: string | null) => void;
}

/** The most deliveries claimed at once: one statement's worth, sent `concurrency` at a time. */
export const CLAIM_BATCH = 100;
/** The most outcomes written in one transaction. */
const RECORD_BATCH = 1_000;
/** A group of outcomes that could not be written is tried this many times, then left: its attempts stay unknown. */
const RECORD_TRIES = 3;

/**
 * One worker's webhook delivery (docs/adr/0017-webhooks.md). It claims due deliveries from Postgres a batch at a time
 * (one statement logs their attempts, before anything is sent, and leases them to this worker), keeps up to
 * `concurrency` attempts in flight, claims the next batch while the last is being sent, and writes outcomes in groups:
 * whatever finished while one group was being written goes in the next, one transaction each.
 *
 * A claim's lease is twice the attempt's timeout and the grace: an attempt waits at most one timeout to start (one
 * that could not start in time is given back, never sent late) and takes at most one. So no other worker sends a
 * leased delivery, and one that this worker had in flight when it died is retried once the lease ends. When a claim
 * finds fewer than it asked for, nothing else is due now: the next look is `pollEveryMs` later.
 */
export class DeliveryPump {
  private readonly ready: ClaimedAttempt[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly outcomes: PlannedOutcome[] = [];
  private claiming: Promise<void> | null = null;
  private recording: Promise<void> | null = null;
  private running: Promise<void> | null = null;
  /** Until when the outbox had nothing more due (a claim came back short). */
  private idleUntil = 0;
  private stopped = false;
  /** Stopped before its attempts ended: what they answer later is not written (their outcome stays unknown). */
  private abandoned = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly deliverer: WebhookDeliverer,
    private readonly options: PumpOptions,
  ) {}

  /** How long a claim keeps a delivery from other workers. */
  get leaseMs(): number {
    return 2 * this.options.timeoutMs + this.options.graceMs;
  }

  start(): void {
    this.stopped = false;
    this.abandoned = false;
    this.running ??= this.run();
  }

  /**
   * Stops claiming, gives back what was claimed and not started (due again at once, for any worker), lets the attempts
   * in flight finish (each within its timeout) and writes their outcomes — for at most `waitMs`. Answers whether all of
   * that finished; if not, what is still in flight is left without an outcome in the log (the receiver may get it),
   * retried when its lease ends, as a killed worker's would be: an answer that comes later is not written.
   */
  async stop(waitMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    this.stopped = true;
    this.wake?.();
    const settled = (async () => {
      await this.running;
      this.running = null;
      await this.claiming;
      await this.giveBack(this.ready.splice(0));
      await Promise.all(this.inFlight);
      while (this.recording) await this.recording;
      return true;
    })();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      if (Number.isFinite(waitMs)) timer = setTimeout(() => resolve(false), waitMs).unref();
    });
    const finished = await Promise.race([settled, late]);
    clearTimeout(timer);
    this.abandoned = !finished;
    return finished;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.fill();
      await this.pause(this.options.pollEveryMs);
    }
  }

  /** Starts what the free slots allow, and a claim when the batch at hand runs low. */
  private fill(): void {
    const { concurrency, timeoutMs, clock } = this.options;
    const now = clock.now().getTime();
    // What waited a whole timeout to start is given back, not sent late: its lease would not cover it.
    const fresh = this.ready.findIndex((c) => now - c.at.getTime() <= timeoutMs);
    if (fresh !== 0 && this.ready.length > 0) void this.giveBack(this.ready.splice(0, fresh === -1 ? this.ready.length : fresh));
    while (this.ready.length > 0 && this.inFlight.size < concurrency) this.track(this.attempt(this.ready.shift()!));
    const low = this.ready.length < Math.max(concurrency, CLAIM_BATCH / 2);
    // Busy with what it claimed: the loop turns (a saturated worker claims again only once its batch runs low).
    if (!low) this.options.onRound?.(null);
    // Not while outcomes pile up unwritten (Postgres slow or away): they would only be sent and not logged.
    if (!this.stopped && low && !this.claiming && now >= this.idleUntil && this.outcomes.length < CLAIM_BATCH * 4) {
      this.claiming = this.claim(CLAIM_BATCH - this.ready.length).finally(() => {
        this.claiming = null;
        this.wake?.();
      });
    }
  }

  private async claim(max: number): Promise<void> {
    try {
      const now = this.options.clock.now();
      const claimed = await claimDueAttempts(this.prisma, now, new Date(now.getTime() + this.leaseMs), max);
      if (this.stopped) await this.giveBack(claimed);
      else this.ready.push(...claimed);
      // Fewer than asked for: nothing else is due now. A full claim: the next once this one runs low.
      if (claimed.length < max) this.idleUntil = now.getTime() + this.options.pollEveryMs;
      this.options.onRound?.(null);
    } catch (err) {
      this.idleUntil = this.options.clock.now().getTime() + this.options.pollEveryMs;
      this.options.onRound?.(describe(err));
      this.options.onError(`webhook claim failed, tried again in ${this.options.pollEveryMs} ms: ${describe(err)}`);
    }
  }

  private async giveBack(claims: ClaimedAttempt[]): Promise<void> {
    try {
      await releaseClaims(this.prisma, claims, this.options.clock.now());
    } catch (err) {
      // Their leases end by themselves; the attempts show without an outcome, though nothing was sent.
      this.options.onError(`${claims.length} webhook claims could not be given back (retried when their lease ends): ${describe(err)}`);
    }
  }

  private track(attempt: Promise<void>): void {
    this.inFlight.add(attempt);
    void attempt.finally(() => {
      this.inFlight.delete(attempt);
      this.wake?.();
    });
  }

  private async attempt(claim: ClaimedAttempt): Promise<void> {
    const result = await this.deliverer.send(claim);
    if (this.abandoned) return;
    this.outcomes.push(planOutcome(claim, result, this.options.random));
    this.recording ??= this.record();
  }

  /** Writes the outcomes waiting, a group a transaction, until none is left. */
  private async record(): Promise<void> {
    let tries = 0;
    while (this.outcomes.length > 0) {
      const group = this.outcomes.splice(0, RECORD_BATCH);
      try {
        const disabled = await recordOutcomes(this.prisma, group);
        for (const [endpointId, reason] of disabled) this.options.onDisabled?.(endpointId, reason);
        tries = 0;
      } catch (err) {
        tries += 1;
        if (tries < RECORD_TRIES) {
          this.outcomes.unshift(...group);
          await sleep(Math.min(this.options.pollEveryMs, 1_000));
        } else {
          // Their attempts stay in the log without an outcome, and their deliveries are retried when the lease ends.
          this.options.onError(`${group.length} webhook outcomes could not be written (retried when their lease ends): ${describe(err)}`);
          tries = 0;
        }
      }
    }
    this.recording = null;
    this.wake?.();
  }

  /** Waits `ms`, or until an attempt, a claim or a write ends, or the pump stops. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(), ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const describe = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);
