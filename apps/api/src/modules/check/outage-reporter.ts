import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { DegradedCause, DegradedMode } from '@tollgate/domain';
import { DeadlineExceeded, ReplicaAckMissing } from '@tollgate/limiter';
import { BrokenCircuitError, IsolatedCircuitError } from 'cockatiel';
import { describeError } from '../../common/describe-error';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { MetricsService } from '../metrics/metrics.service';
import type { QuotaStoreUnavailable } from './resilient-limiter';

/** How a check Redis did not decide was answered: passed (`open`), refused with a 503 (`closed`), or on this node (`local`). */
export type OutageAnswer = DegradedMode;

/**
 * Why Redis did not decide: it answered after the decision deadline (`deadline`: the failure mode answered, and the
 * late reply was not waited for), the circuit in front of it was open (`circuit_open`: it was not asked), or the call
 * failed (`redis_error`: refused, reset, timed out by the client). Usage counts each degraded decision with it too
 * (`degradedReason`).
 */
export type OutageCause = DegradedCause;

const ANSWERS: readonly OutageAnswer[] = ['open', 'closed', 'local'];

/** What one cause did since it started, and since the last line. */
interface Episode {
  since: number;
  total: Map<OutageAnswer, number>;
  interval: Map<OutageAnswer, number>;
  /** The first error of the episode, described without its stack (describe-error.ts). */
  first: { type: string; code?: string; message: string };
}

/** The cause of a check Redis did not decide, from what the limiter threw (the `cause` of QuotaStoreUnavailable). */
export function outageCause(err: unknown): OutageCause {
  if (err instanceof ReplicaAckMissing) return 'replica';
  if (err instanceof DeadlineExceeded) return 'deadline';
  if (err instanceof BrokenCircuitError || err instanceof IsolatedCircuitError) return 'circuit_open';
  return 'redis_error';
}

/**
 * Makes a bad day visible without flooding the log (docs/reliability.md, "A bad day is visible"). Every check Redis
 * did not decide is counted here, once: `tollgate_degraded_decisions_total{mode, cause}` and the log agree because
 * both come from `record`. The log has a line when a cause first appears (at once, with the first error, no stack),
 * then one line per cause and `OUTAGE_LOG_EVERY_MS` with how many checks it touched and how each was answered,
 * and a line when it ends (an interval in which no check met it), with its duration and totals. A 503 it counted is
 * not logged again per request (enforcement-http.ts).
 */
@Injectable()
export class OutageReporter implements OnApplicationShutdown {
  private readonly log = new Logger('Outage');
  private readonly episodes = new Map<OutageCause, Episode>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly metrics: MetricsService,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  /** One check Redis did not decide (`unavailable.cause` says why), answered as `answer`; its cause. */
  record(unavailable: QuotaStoreUnavailable, answer: OutageAnswer): OutageCause {
    const err = unavailable.cause;
    const cause = outageCause(err);
    this.metrics.degraded.inc({ mode: answer, cause });
    let episode = this.episodes.get(cause);
    if (!episode) {
      const { type, code, message } = describeError(err);
      episode = { since: Date.now(), total: new Map(), interval: new Map(), first: { type, ...(code === undefined ? {} : { code }), message } };
      this.episodes.set(cause, episode);
      add(episode.total, answer);
      this.log.warn({ event: 'redis_outage_started', cause, checks: 1, answers: counts(episode.total), error: episode.first }, `Redis did not decide a check (${cause}): answered by its failure mode (${answer}); a summary follows every ${this.config.failover.logEveryMs} ms while it lasts`);
      this.timer ??= setInterval(() => this.report(), this.config.failover.logEveryMs).unref();
      return cause;
    }
    add(episode.total, answer);
    add(episode.interval, answer);
    return cause;
  }

  /** One line per cause: what it touched since the last line, or that it ended. */
  report(): void {
    const now = Date.now();
    for (const [cause, episode] of this.episodes) {
      const seconds = Math.round((now - episode.since) / 100) / 10;
      if (episode.interval.size === 0) {
        this.episodes.delete(cause);
        const total = sum(episode.total);
        this.log.log(
          { event: 'redis_outage_ended', cause, seconds, checks: total, answers: counts(episode.total) },
          `no check met ${cause} in the last ${this.config.failover.logEveryMs} ms: over after ${seconds} s, ${total} check(s) answered without Redis (${describeAnswers(episode.total)})`,
        );
        continue;
      }
      const checks = sum(episode.interval);
      this.log.warn(
        { event: 'redis_outage', cause, seconds, checks, answers: counts(episode.interval), totalChecks: sum(episode.total) },
        `Redis did not decide ${checks} check(s) in the last ${this.config.failover.logEveryMs} ms (${cause}, for ${seconds} s): ${describeAnswers(episode.interval)}`,
      );
      episode.interval = new Map();
    }
    if (this.episodes.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** A node that stops during an outage says what it touched since the last line. */
  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const [cause, episode] of this.episodes) {
      const checks = sum(episode.interval);
      if (checks === 0) continue;
      this.log.warn({ event: 'redis_outage', cause, checks, answers: counts(episode.interval), totalChecks: sum(episode.total) }, `Redis did not decide ${checks} check(s) before this node stopped (${cause}): ${describeAnswers(episode.interval)}`);
    }
    this.episodes.clear();
  }
}

function add(map: Map<OutageAnswer, number>, answer: OutageAnswer): void {
  map.set(answer, (map.get(answer) ?? 0) + 1);
}

function sum(map: Map<OutageAnswer, number>): number {
  let total = 0;
  for (const n of map.values()) total += n;
  return total;
}

/** The counts per answer, every answer named (0 when none), in a fixed order. */
function counts(map: Map<OutageAnswer, number>): Record<OutageAnswer, number> {
  return { open: map.get('open') ?? 0, closed: map.get('closed') ?? 0, local: map.get('local') ?? 0 };
}

const WORDS: Record<OutageAnswer, string> = { open: 'passed (open)', closed: 'refused with 503 (closed)', local: 'decided on this node (local)' };

function describeAnswers(map: Map<OutageAnswer, number>): string {
  return ANSWERS.filter((a) => (map.get(a) ?? 0) > 0).map((a) => `${map.get(a)} ${WORDS[a]}`).join(', ');
}
