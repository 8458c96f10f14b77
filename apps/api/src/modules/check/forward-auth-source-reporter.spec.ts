import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadApiConfig } from '../../config/config';
import { MetricsService } from '../metrics/metrics.service';
import { sourceProblem } from './forward-auth-original';
import { ForwardAuthSourceReporter, SOURCE_LOG_EVERY_MS } from './forward-auth-source-reporter';

describe('forward-auth requests that do not match FORWARD_AUTH_ORIGINAL', () => {
  const req = (headers: Record<string, string>) => ({ headers });

  it('names the source headers missing, or those of another source sent', () => {
    const forwarded = { 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/v1/items' };
    const original = { 'x-original-method': 'GET', 'x-original-uri': '/v1/items' };
    expect(sourceProblem(req(forwarded), 'x-forwarded')).toBeNull();
    // An nginx configuration from before the change: X-Original-* only, Tollgate told x-forwarded.
    expect(sourceProblem(req(original), 'x-forwarded')).toEqual({ problem: 'missing', headers: ['x-forwarded-method', 'x-forwarded-uri'] });
    // The same gateway with a client that adds its own X-Forwarded-Uri: decided on the client's pair, and said so.
    expect(sourceProblem(req({ ...forwarded, ...original }), 'x-forwarded')).toEqual({ problem: 'other_source', headers: ['x-original-method', 'x-original-uri'] });
    expect(sourceProblem(req({ 'x-original-uri': '/a' }), 'x-original')).toEqual({ problem: 'missing', headers: ['x-original-method'] });
    expect(sourceProblem(req({}), 'path')).toBeNull();
    expect(sourceProblem(req({ 'x-forwarded-uri': '/a' }), 'path')).toEqual({ problem: 'other_source', headers: ['x-forwarded-uri'] });
  });

  describe('ForwardAuthSourceReporter', () => {
    const config = loadApiConfig({});
    let metrics: MetricsService;
    let reporter: ForwardAuthSourceReporter;
    let logged: Record<string, unknown>[];

    beforeEach(() => {
      vi.useFakeTimers();
      metrics = new MetricsService(config);
      reporter = new ForwardAuthSourceReporter(metrics, config);
      logged = [];
      vi.spyOn(Logger.prototype, 'warn').mockImplementation((fields: unknown) => void logged.push(fields as Record<string, unknown>));
    });
    afterEach(() => {
      reporter.onApplicationShutdown();
      vi.restoreAllMocks();
      vi.useRealTimers();
    });

    it('counts every request and logs a problem at once, then once per interval with how many requests it touched', async () => {
      const missing = { problem: 'missing' as const, headers: ['x-forwarded-method', 'x-forwarded-uri'] };
      for (let i = 0; i < 300; i += 1) reporter.record(missing);
      expect(logged).toEqual([{ event: 'forward_auth_source', problem: 'missing', source: 'x-forwarded', headers: missing.headers, requests: 1 }]);
      vi.advanceTimersByTime(SOURCE_LOG_EVERY_MS);
      expect(logged).toHaveLength(2);
      expect(logged[1]).toMatchObject({ problem: 'missing', requests: 299 });
      // A quiet interval says nothing.
      vi.advanceTimersByTime(SOURCE_LOG_EVERY_MS);
      expect(logged).toHaveLength(2);
      reporter.record({ problem: 'other_source', headers: ['x-original-uri'] });
      expect(logged[2]).toMatchObject({ problem: 'other_source', headers: ['x-original-uri'], requests: 1 });
      const metric = (await metrics.registry.getSingleMetricAsString('tollgate_forward_auth_source_problems_total')).split('\n');
      expect(metric).toContain('tollgate_forward_auth_source_problems_total{problem="missing"} 300');
      expect(metric).toContain('tollgate_forward_auth_source_problems_total{problem="other_source"} 1');
    });
  });
});
