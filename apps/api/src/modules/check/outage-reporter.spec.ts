import { Logger } from '@nestjs/common';
import { DeadlineExceeded } from '@tollgate/limiter';
import { BrokenCircuitError } from 'cockatiel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadApiConfig } from '../../config/config';
import { MetricsService } from '../metrics/metrics.service';
import { OutageReporter, outageCause } from './outage-reporter';
import { QuotaStoreUnavailable } from './resilient-limiter';

describe('OutageReporter', () => {
  const config = loadApiConfig({ OUTAGE_LOG_EVERY_MS: '10000' });
  let metrics: MetricsService;
  let reporter: OutageReporter;
  let logged: { level: string; fields: Record<string, unknown> }[];
  const unavailable = (cause: unknown) => new QuotaStoreUnavailable(1000, { cause });

  beforeEach(() => {
    vi.useFakeTimers();
    metrics = new MetricsService(config);
    reporter = new OutageReporter(metrics, config);
    logged = [];
    for (const level of ['log', 'warn'] as const) {
      vi.spyOn(Logger.prototype, level).mockImplementation((fields: unknown) => void logged.push({ level, fields: fields as Record<string, unknown> }));
    }
  });
  afterEach(() => {
    reporter.onApplicationShutdown();
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('names the cause: a deadline missed, the circuit open, or the call failing', () => {
    expect(outageCause(new DeadlineExceeded(50))).toBe('deadline');
    expect(outageCause(new BrokenCircuitError())).toBe('circuit_open');
    expect(outageCause(new Error('Connection is closed.'))).toBe('redis_error');
  });

  it('logs a cause at once, then once per interval with the checks it touched, then its end; the metric agrees', async () => {
    for (let i = 0; i < 500; i += 1) reporter.record(unavailable(new DeadlineExceeded(50)), i % 5 === 0 ? 'closed' : 'open');
    expect(logged).toHaveLength(1);
    expect(logged[0]!.fields).toMatchObject({ event: 'redis_outage_started', cause: 'deadline', checks: 1, answers: { open: 0, closed: 1, local: 0 } });

    vi.advanceTimersByTime(10_000);
    expect(logged).toHaveLength(2);
    expect(logged[1]!.fields).toMatchObject({ event: 'redis_outage', cause: 'deadline', checks: 499, answers: { open: 400, closed: 99, local: 0 }, totalChecks: 500 });

    reporter.record(unavailable(new DeadlineExceeded(50)), 'local');
    vi.advanceTimersByTime(10_000);
    expect(logged[2]!.fields).toMatchObject({ event: 'redis_outage', checks: 1, answers: { local: 1 } });
    vi.advanceTimersByTime(10_000);
    expect(logged).toHaveLength(4);
    expect(logged[3]).toMatchObject({ level: 'log', fields: { event: 'redis_outage_ended', cause: 'deadline', checks: 501, answers: { open: 400, closed: 100, local: 1 } } });
    // Quiet: no more lines, and the timer is gone.
    vi.advanceTimersByTime(60_000);
    expect(logged).toHaveLength(4);
    expect(vi.getTimerCount()).toBe(0);

    const text = await metrics.registry.getSingleMetricAsString('tollgate_degraded_decisions_total');
    expect(text).toContain('tollgate_degraded_decisions_total{mode="open",cause="deadline"} 400');
    expect(text).toContain('tollgate_degraded_decisions_total{mode="closed",cause="deadline"} 100');
    expect(text).toContain('tollgate_degraded_decisions_total{mode="local",cause="deadline"} 1');
  });

  it('says what it touched since its last line when the node stops during an outage', () => {
    reporter.record(unavailable(new BrokenCircuitError()), 'open');
    reporter.record(unavailable(new BrokenCircuitError()), 'local');
    reporter.onApplicationShutdown();
    expect(logged.map((l) => l.fields)).toMatchObject([
      { event: 'redis_outage_started', checks: 1 },
      { event: 'redis_outage', cause: 'circuit_open', checks: 1, answers: { open: 0, closed: 0, local: 1 }, totalChecks: 2 },
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps causes apart: each has its own first line, summaries and end', () => {
    reporter.record(unavailable(new Error('connect ECONNREFUSED')), 'open');
    reporter.record(unavailable(new BrokenCircuitError()), 'open');
    reporter.record(unavailable(new BrokenCircuitError()), 'closed');
    expect(logged.map((l) => [l.fields.event, l.fields.cause])).toEqual([
      ['redis_outage_started', 'redis_error'],
      ['redis_outage_started', 'circuit_open'],
    ]);
    expect(logged[0]!.fields.error).toEqual({ type: 'Error', message: 'connect ECONNREFUSED' });
    vi.advanceTimersByTime(10_000);
    expect(logged.slice(2).map((l) => [l.fields.event, l.fields.cause, l.fields.checks])).toEqual([
      ['redis_outage_ended', 'redis_error', 1],
      ['redis_outage', 'circuit_open', 1],
    ]);
  });
});
