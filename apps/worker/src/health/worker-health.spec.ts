import { describe, expect, it } from 'vitest';
import type { JobSchedule } from '../schedules/job-schedules';
import type { JobRuns } from './run-ledger';
import { INCIDENTS_KEPT, MIN_OVERDUE_MS, WorkerHealth } from './worker-health';

const T0 = Date.parse('2026-12-05T10:00:00.000Z');
const schedules: JobSchedule[] = [
  { queue: 'usage', id: 'usage-rollup', everyMs: 60_000, template: {} },
  { queue: 'webhooks', id: 'webhook-dispatch', everyMs: 1_000, template: {} },
];
const iso = (ms: number) => new Date(ms).toISOString();

/** Runs recorded per job (completed at), as the ledger would answer. */
function runs(completed: Record<string, number | null>) {
  return (_queue: string, job: string): JobRuns => ({ completedAt: completed[job] ?? null, failedAt: null });
}

describe('the worker health', () => {
  it('is ok when a check went through and every job completed within its intervals', () => {
    const health = new WorkerHealth(schedules, [], 3, T0);
    health.checked({ schedules: [], queueSettings: [] }, T0 + 1_000);
    const report = health.report(runs({ 'usage-rollup': T0 + 2_000, 'webhook-dispatch': T0 + 2_000 }), T0 + 3_000);
    expect(report).toMatchObject({ status: 'ok', checkedAt: iso(T0 + 1_000), schedules: 'checked', problems: [], incidents: [] });
    expect(report.jobs[0]).toEqual({ queue: 'usage', job: 'usage-rollup', everyMs: 60_000, schedule: 'present', lastCompletedAt: iso(T0 + 2_000), lastFailedAt: null, overdue: false });
  });

  it('is degraded before its first check, and while checks fail, naming the error and since when; the incident ends with the next check', () => {
    const health = new WorkerHealth(schedules, [], 3, T0);
    expect(health.report(runs({}), T0).status).toBe('degraded');
    health.checked({ schedules: [], queueSettings: [] }, T0 + 1_000);
    health.checkFailed('connect ECONNREFUSED 127.0.0.1:6379', T0 + 6_000);
    health.checkFailed('connect ECONNREFUSED 127.0.0.1:6379', T0 + 11_000);
    const down = health.report(runs({ 'usage-rollup': T0 + 5_000, 'webhook-dispatch': T0 + 5_000 }), T0 + 12_000);
    expect(down.status).toBe('degraded');
    expect(down.schedules).toBe('unchecked');
    expect(down.jobs.map((j) => j.schedule)).toEqual(['unknown', 'unknown']);
    expect(down.problems).toEqual([`the schedules could not be checked in Redis since ${iso(T0 + 1_000)}: connect ECONNREFUSED 127.0.0.1:6379`]);
    expect(down.incidents).toEqual([
      { kind: 'schedules-unchecked', subject: null, detail: 'connect ECONNREFUSED 127.0.0.1:6379', since: iso(T0 + 6_000), lastSeenFine: iso(T0 + 1_000), until: null },
    ]);
    health.checked({ schedules: [], queueSettings: [] }, T0 + 16_000);
    const up = health.report(runs({ 'usage-rollup': T0 + 15_000, 'webhook-dispatch': T0 + 15_000 }), T0 + 16_000);
    expect(up.status).toBe('ok');
    expect(up.incidents[0]).toMatchObject({ kind: 'schedules-unchecked', until: iso(T0 + 16_000) });
  });

  it('records each schedule and queue setting a check put back, between the check that last saw it and that one', () => {
    const health = new WorkerHealth(schedules, [], 3, T0);
    health.checked({ schedules: [], queueSettings: [] }, T0 + 1_000);
    health.checked({ schedules: ['usage-rollup'], queueSettings: ['usage'] }, T0 + 6_000);
    const report = health.report(runs({ 'usage-rollup': T0 + 5_000, 'webhook-dispatch': T0 + 5_900 }), T0 + 6_500);
    expect(report.status).toBe('ok');
    expect(report.incidents).toEqual([
      { kind: 'queue-setting-missing', subject: 'usage', detail: null, since: iso(T0 + 6_000), lastSeenFine: iso(T0 + 1_000), until: iso(T0 + 6_000) },
      { kind: 'schedule-missing', subject: 'usage-rollup', detail: null, since: iso(T0 + 6_000), lastSeenFine: iso(T0 + 1_000), until: iso(T0 + 6_000) },
    ]);
  });

  it('calls a job overdue after its missed runs (never sooner than 30 s), counted from its last run, start or schedule put back', () => {
    const health = new WorkerHealth(schedules, [], 3, T0);
    health.checked({ schedules: [], queueSettings: [] }, T0);
    const lastRollup = T0 + 10_000;
    // The rollup: 3 × 60 s after its last run. The dispatcher: 3 × 1 s is less than 30 s, so 30 s after start.
    expect(health.report(runs({ 'usage-rollup': lastRollup }), T0 + MIN_OVERDUE_MS).jobs.map((j) => j.overdue)).toEqual([false, false]);
    const late = health.report(runs({ 'usage-rollup': lastRollup }), T0 + MIN_OVERDUE_MS + 1);
    expect(late.jobs.map((j) => j.overdue)).toEqual([false, true]);
    expect(late.problems).toEqual([`webhook-dispatch: no run completed since ${iso(T0)} (runs every 1000 ms)`]);
    expect(health.report(runs({ 'usage-rollup': lastRollup }), lastRollup + 180_001).problems).toContain(`usage-rollup: no run completed since ${iso(lastRollup)} (runs every 60000 ms)`);
    // A schedule put back gives its job its intervals again.
    health.checked({ schedules: ['webhook-dispatch'], queueSettings: [] }, lastRollup + 180_002);
    const now = lastRollup + 180_003;
    expect(health.report(runs({ 'usage-rollup': now }), now).jobs.map((j) => j.overdue)).toEqual([false, false]);
    const overdue = health.report(runs({ 'usage-rollup': now }), now).incidents.filter((i) => i.kind === 'job-overdue');
    expect(overdue.map((i) => [i.subject, i.since, i.until])).toEqual([
      ['usage-rollup', iso(lastRollup + 180_001), iso(now)],
      ['webhook-dispatch', iso(T0 + MIN_OVERDUE_MS + 1), iso(now)],
    ]);
  });

  it('calls the webhook delivery loop stalled after its missed rounds (never sooner than 30 s), names its last error, and ends the incident with its next round', () => {
    const delivery = { name: 'webhook-delivery', everyMs: 1_000, round: 'claim round' };
    const health = new WorkerHealth([], [delivery], 3, T0);
    health.checked({ schedules: [], queueSettings: [] }, T0);
    health.loopRan('webhook-delivery', null, T0 + 1_000);
    // Claims fail each round from then on (Postgres away): 3 × 1 s is less than 30 s, so stalled 30 s after the last round.
    for (let at = T0 + 2_000; at <= T0 + 31_000; at += 1_000) health.loopRan('webhook-delivery', "Can't reach database server at 127.0.0.1:5432", at);
    const early = health.report(runs({}), T0 + 1_000 + MIN_OVERDUE_MS);
    expect(early.status).toBe('ok');
    expect(early.loops).toEqual([
      { loop: 'webhook-delivery', everyMs: 1_000, lastCompletedAt: iso(T0 + 1_000), lastFailedAt: iso(T0 + 31_000), lastError: "Can't reach database server at 127.0.0.1:5432", overdue: false },
    ]);
    const stalledAt = T0 + 1_000 + MIN_OVERDUE_MS + 1;
    const down = health.report(runs({}), stalledAt);
    expect(down.status).toBe('degraded');
    expect(down.loops[0]!.overdue).toBe(true);
    expect(down.problems).toEqual([
      `webhook-delivery: no claim round completed since ${iso(T0 + 1_000)} (every 1000 ms); last failed at ${iso(T0 + 31_000)}: Can't reach database server at 127.0.0.1:5432`,
    ]);
    health.loopRan('webhook-delivery', null, T0 + 40_000);
    const up = health.report(runs({}), T0 + 40_500);
    expect(up.status).toBe('ok');
    expect(up.loops[0]).toMatchObject({ lastCompletedAt: iso(T0 + 40_000), lastError: null, overdue: false });
    expect(up.incidents).toEqual([
      { kind: 'loop-stalled', subject: 'webhook-delivery', detail: "Can't reach database server at 127.0.0.1:5432", since: iso(stalledAt), lastSeenFine: iso(T0 + 1_000), until: iso(T0 + 40_500) },
    ]);
  });

  it('calls a loop that never completed a round stalled from the start, and one of a long interval after its missed rounds', () => {
    const health = new WorkerHealth([], [{ name: 'webhook-delivery', everyMs: 60_000, round: 'claim round' }], 3, T0);
    health.checked({ schedules: [], queueSettings: [] }, T0);
    // A loop that hangs on its first claim (Postgres blackholed) tells nothing: counted from the start.
    expect(health.report(runs({}), T0 + 180_000).status).toBe('ok');
    const hung = health.report(runs({}), T0 + 180_001);
    expect(hung.problems).toEqual([`webhook-delivery: no claim round completed since ${iso(T0)} (every 60000 ms)`]);
    expect(hung.incidents[0]).toMatchObject({ kind: 'loop-stalled', detail: null, lastSeenFine: null, until: null });
  });

  it(`keeps the last ${INCIDENTS_KEPT} incidents, newest first`, () => {
    const health = new WorkerHealth(schedules, [], 3, T0);
    for (let i = 0; i < INCIDENTS_KEPT + 5; i += 1) health.checked({ schedules: ['usage-rollup'], queueSettings: [] }, T0 + i * 1_000);
    const { incidents } = health.report(runs({}), T0);
    expect(incidents).toHaveLength(INCIDENTS_KEPT);
    expect(incidents[0]!.since).toBe(iso(T0 + (INCIDENTS_KEPT + 4) * 1_000));
  });
});
