import type { JobSchedule } from '../schedules/job-schedules';
import type { JobRuns } from './run-ledger';

/** A job whose interval is shorter than this is not late before this long without a completed run (one slow query). */
export const MIN_OVERDUE_MS = 30_000;
/** Incidents kept for `/health` (the oldest are dropped first). */
export const INCIDENTS_KEPT = 50;

/**
 * Work a worker does in a loop of its own instead of as a scheduled job (webhook delivery claims from Postgres in a
 * loop): watched like a job, but per process (each worker runs its own loop) and without Redis (the loop does not need it).
 */
export interface WatchedLoop {
  name: string;
  /** How often it completes a round when all is well (its poll interval). */
  everyMs: number;
  /** What one round is, in a problem's words ("claim round"). */
  round: string;
}

/** A loop the health watches: what it is, and how to hear of its rounds. */
export interface LoopSource {
  readonly loop: WatchedLoop;
  onRound(listener: (error: string | null) => void): void;
}

/** What the last check found of a schedule: there (found, or put back), or unknown (the check failed). */
export type SchedulePresence = 'present' | 'unknown';

/**
 * `schedules-unchecked`: a check of the schedules failed (Redis down, unreachable, read-only); `schedule-missing` and
 * `queue-setting-missing`: a check found one gone from Redis (and put it back); `job-overdue`: a job did not complete on time;
 * `loop-stalled`: a loop of this worker (webhook delivery) did not complete a round on time (its last error as detail).
 */
export type IncidentKind = 'schedules-unchecked' | 'schedule-missing' | 'queue-setting-missing' | 'job-overdue' | 'loop-stalled';

/** Something that kept the worker's jobs from running, from when it was noticed until it ended (`null`: still on). */
export interface Incident {
  kind: IncidentKind;
  /** The job (or queue) concerned; none for Redis. */
  subject: string | null;
  /** When it was noticed. */
  since: number;
  /** What went wrong, if more than the kind says (the error of a failed check, a loop's last failed round). */
  detail: string | null;
  /** The last time it was seen fine before that (the gap began between the two), if ever. */
  lastSeenFine: number | null;
  until: number | null;
}

export interface JobState {
  queue: string;
  job: string;
  everyMs: number;
  schedule: SchedulePresence;
  lastCompletedAt: number | null;
  lastFailedAt: number | null;
  /** Late: no run completed for `missedRuns` intervals (at least MIN_OVERDUE_MS). */
  overdue: boolean;
}

export interface LoopState {
  loop: string;
  everyMs: number;
  lastCompletedAt: number | null;
  lastFailedAt: number | null;
  /** The error of its last failed round, if it failed since it last completed one. */
  lastError: string | null;
  /** Stalled: no round completed for `missedRuns` intervals (at least MIN_OVERDUE_MS). */
  overdue: boolean;
}

export interface HealthReport {
  status: 'ok' | 'degraded';
  startedAt: string;
  /** The last time every schedule was checked in Redis (null: not once yet). */
  checkedAt: string | null;
  /** Whether the last check of the schedules succeeded. */
  schedules: 'checked' | 'unchecked';
  jobs: {
    queue: string;
    job: string;
    everyMs: number;
    schedule: SchedulePresence;
    lastCompletedAt: string | null;
    lastFailedAt: string | null;
    overdue: boolean;
  }[];
  /** This worker's own loops (webhook delivery): when each last completed and failed a round, and whether it stalled. */
  loops: { loop: string; everyMs: number; lastCompletedAt: string | null; lastFailedAt: string | null; lastError: string | null; overdue: boolean }[];
  /** What makes the status degraded now, in words. */
  problems: string[];
  /** What went wrong, newest first, ended or not: the gaps an operator looks for after the fact. */
  incidents: { kind: IncidentKind; subject: string | null; detail: string | null; since: string; lastSeenFine: string | null; until: string | null }[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Whether work that should complete every `everyMs` is late at `now`, counted `from` its last run (or start). */
function isOverdue(from: number, everyMs: number, missedRuns: number, now: number): boolean {
  return now - from > Math.max(missedRuns * everyMs, MIN_OVERDUE_MS);
}

/**
 * The worker's health: whether Redis answers, every schedule is there, every job completes on time and every loop of
 * its own (webhook delivery) completes its rounds, and the incidents of the past (a schedule missing from when to when).
 * ScheduleKeeper tells it what each check found, the loops each round; `report` is what `GET /health` answers.
 */
export class WorkerHealth {
  private readonly presence = new Map<string, { state: SchedulePresence; lastSeenFine: number | null; restoredAt: number | null }>();
  private readonly open = new Map<string, Incident>();
  private readonly incidents: Incident[] = [];
  private failing: string | null = 'not checked yet';
  private checkedAt: number | null = null;
  private readonly rounds = new Map<string, { completedAt: number | null; failedAt: number | null; error: string | null }>();

  constructor(
    private readonly schedules: readonly JobSchedule[],
    private readonly watchedLoops: readonly WatchedLoop[],
    private readonly missedRuns: number,
    private readonly startedAt = Date.now(),
  ) {}

  /** A loop of this worker completed a round (`error` null) or failed one (its error, in one line). */
  loopRan(name: string, error: string | null, at = Date.now()): void {
    const was = this.rounds.get(name) ?? { completedAt: null, failedAt: null, error: null };
    this.rounds.set(name, error === null ? { ...was, completedAt: at, error: null } : { ...was, failedAt: at, error });
  }

  /**
   * A check went through: every schedule and queue setting is in Redis, those in `restored` because this check put
   * them back (their incident is the gap between the check before, which saw them, and this one).
   */
  checked(restored: { schedules: readonly string[]; queueSettings: readonly string[] }, at = Date.now()): void {
    this.closeIncident('schedules-unchecked', null, at);
    for (const { id } of this.schedules) {
      const was = this.presence.get(id);
      const lost = restored.schedules.includes(id);
      if (lost) this.recordRestored('schedule-missing', id, at, was?.lastSeenFine ?? null);
      this.presence.set(id, { state: 'present', lastSeenFine: at, restoredAt: lost ? at : (was?.restoredAt ?? null) });
    }
    for (const queue of restored.queueSettings) this.recordRestored('queue-setting-missing', queue, at, this.checkedAt);
    this.failing = null;
    this.checkedAt = at;
  }

  /** A check failed (`reason`: its error): every schedule is unknown until one goes through. */
  checkFailed(reason: string, at = Date.now()): void {
    this.openIncident('schedules-unchecked', null, at, this.checkedAt, reason);
    this.failing = reason;
    for (const { id } of this.schedules) {
      const was = this.presence.get(id);
      this.presence.set(id, { state: 'unknown', lastSeenFine: was?.lastSeenFine ?? null, restoredAt: was?.restoredAt ?? null });
    }
  }

  /** Each job's state now, opening and closing `job-overdue` incidents as jobs fall behind and catch up. */
  jobs(runsOf: (queue: string, job: string) => JobRuns, now = Date.now()): JobState[] {
    return this.schedules.map((s) => {
      const runs = runsOf(s.queue, s.id);
      const presence = this.presence.get(s.id);
      // A job is not late for a run it could not have made: counted from its last run, start, or schedule put back.
      const from = Math.max(runs.completedAt ?? 0, this.startedAt, presence?.restoredAt ?? 0);
      const overdue = isOverdue(from, s.everyMs, this.missedRuns, now);
      if (overdue) this.openIncident('job-overdue', s.id, now, runs.completedAt);
      else this.closeIncident('job-overdue', s.id, now);
      return { queue: s.queue, job: s.id, everyMs: s.everyMs, schedule: presence?.state ?? 'unknown', lastCompletedAt: runs.completedAt, lastFailedAt: runs.failedAt, overdue };
    });
  }

  /** Each loop's state now, opening and closing `loop-stalled` incidents as loops stall and resume. */
  loops(now = Date.now()): LoopState[] {
    return this.watchedLoops.map(({ name, everyMs }) => {
      const { completedAt = null, failedAt = null, error = null } = this.rounds.get(name) ?? {};
      const overdue = isOverdue(Math.max(completedAt ?? 0, this.startedAt), everyMs, this.missedRuns, now);
      if (overdue) this.openIncident('loop-stalled', name, now, completedAt, error);
      else this.closeIncident('loop-stalled', name, now);
      return { loop: name, everyMs, lastCompletedAt: completedAt, lastFailedAt: failedAt, lastError: error, overdue };
    });
  }

  report(runsOf: (queue: string, job: string) => JobRuns, now = Date.now()): HealthReport {
    const jobs = this.jobs(runsOf, now);
    const loops = this.loops(now);
    const problems = [
      ...(this.failing === null ? [] : [`the schedules could not be checked in Redis${this.checkedAt === null ? '' : ` since ${iso(this.checkedAt)}`}: ${this.failing}`]),
      ...jobs
        .filter((j) => j.overdue)
        .map((j) => `${j.job}: no run completed since ${iso(j.lastCompletedAt ?? Math.max(this.startedAt, this.presence.get(j.job)?.restoredAt ?? 0))} (runs every ${j.everyMs} ms)`),
      ...loops.filter((l) => l.overdue).map((l) => this.stalled(l)),
    ];
    return {
      status: problems.length === 0 ? 'ok' : 'degraded',
      startedAt: iso(this.startedAt)!,
      checkedAt: iso(this.checkedAt),
      schedules: this.failing === null ? 'checked' : 'unchecked',
      jobs: jobs.map((j) => ({ ...j, lastCompletedAt: iso(j.lastCompletedAt), lastFailedAt: iso(j.lastFailedAt) })),
      loops: loops.map((l) => ({ ...l, lastCompletedAt: iso(l.lastCompletedAt), lastFailedAt: iso(l.lastFailedAt) })),
      problems,
      incidents: [...this.incidents]
        .reverse()
        .map((i) => ({ kind: i.kind, subject: i.subject, detail: i.detail, since: iso(i.since)!, lastSeenFine: iso(i.lastSeenFine), until: iso(i.until) })),
    };
  }

  /** A stalled loop's problem, in words: since when no round completed, and its last failure if it failed since. */
  private stalled(l: LoopState): string {
    const round = this.watchedLoops.find((w) => w.name === l.loop)?.round ?? 'round';
    const failure = l.lastError === null ? '' : `; last failed at ${iso(l.lastFailedAt)}: ${l.lastError}`;
    return `${l.loop}: no ${round} completed since ${iso(l.lastCompletedAt ?? this.startedAt)} (every ${l.everyMs} ms)${failure}`;
  }

  /** Something found missing and put back by the same check: noticed and ended at `at`. */
  private recordRestored(kind: IncidentKind, subject: string, at: number, lastSeenFine: number | null): void {
    this.openIncident(kind, subject, at, lastSeenFine);
    this.closeIncident(kind, subject, at);
  }

  private openIncident(kind: IncidentKind, subject: string | null, at: number, lastSeenFine: number | null, detail: string | null = null): void {
    const key = `${kind}/${subject ?? ''}`;
    if (this.open.has(key)) return;
    const incident: Incident = { kind, subject, detail, since: at, lastSeenFine, until: null };
    this.open.set(key, incident);
    this.incidents.push(incident);
    if (this.incidents.length > INCIDENTS_KEPT) this.incidents.shift();
  }

  private closeIncident(kind: IncidentKind, subject: string | null, at: number): void {
    const key = `${kind}/${subject ?? ''}`;
    const incident = this.open.get(key);
    if (!incident) return;
    incident.until = at;
    this.open.delete(key);
  }
}
