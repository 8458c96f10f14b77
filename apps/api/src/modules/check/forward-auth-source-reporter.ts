import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { MetricsService } from '../metrics/metrics.service';
import type { SourceProblem } from './forward-auth-original';

/** At most one line per problem and this interval while it lasts: a misconfigured gateway sends it on every request. */
export const SOURCE_LOG_EVERY_MS = 60_000;

const ADVICE: Record<SourceProblem['problem'], (source: string) => string> = {
  missing: (source) =>
    `the gateway does not send the headers FORWARD_AUTH_ORIGINAL=${source} reads: each such request is refused with 400 (nginx's auth_request answers the client 500). Set FORWARD_AUTH_ORIGINAL to what the gateway sends, or use the configuration in docker/gateways (UPGRADING.md)`,
  other_source: (source) =>
    `the gateway passes original-request headers that FORWARD_AUTH_ORIGINAL=${source} does not read: they are ignored, but a gateway that sets one pair and passes the client's other is how a client chose its own route before; clear them in the gateway (docker/gateways/README.md, UPGRADING.md)`,
};

/**
 * Makes a gateway that does not match `FORWARD_AUTH_ORIGINAL` visible (docs/reliability.md, "A bad day is visible"):
 * every forward-auth request whose original-request headers are wrong for the configured source is counted in
 * `tollgate_forward_auth_source_problems_total{problem}`, and logged once when a problem first appears (with the
 * headers and what to do), then at most once per `SOURCE_LOG_EVERY_MS` with how many requests it touched.
 */
@Injectable()
export class ForwardAuthSourceReporter implements OnApplicationShutdown {
  private readonly log = new Logger('ForwardAuth');
  /** Requests per problem since its last line, and the headers of the last one. */
  private readonly pending = new Map<SourceProblem['problem'], { requests: number; headers: string[] }>();
  private readonly seen = new Set<SourceProblem['problem']>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly metrics: MetricsService,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  record({ problem, headers }: SourceProblem): void {
    this.metrics.forwardAuthSourceProblems.inc({ problem });
    const source = this.config.forwardAuth.original;
    if (!this.seen.has(problem)) {
      this.seen.add(problem);
      this.log.warn({ event: 'forward_auth_source', problem, source, headers, requests: 1 }, `forward-auth: ${headers.join(', ')} (${problem}): ${ADVICE[problem](source)}`);
      this.timer ??= setInterval(() => this.report(), SOURCE_LOG_EVERY_MS).unref();
      return;
    }
    const entry = this.pending.get(problem) ?? { requests: 0, headers };
    entry.requests += 1;
    entry.headers = headers;
    this.pending.set(problem, entry);
  }

  /** One line per problem met since the last: how many requests, and the headers of the last. */
  report(): void {
    const source = this.config.forwardAuth.original;
    for (const [problem, { requests, headers }] of this.pending) {
      this.log.warn(
        { event: 'forward_auth_source', problem, source, headers, requests },
        `forward-auth: ${requests} more request(s) in the last ${SOURCE_LOG_EVERY_MS / 1000} s with ${headers.join(', ')} (${problem}): ${ADVICE[problem](source)}`,
      );
    }
    this.pending.clear();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.report();
  }
}
