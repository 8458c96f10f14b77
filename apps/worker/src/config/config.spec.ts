import { ConfigError } from '@tollgate/domain';
import { describe, expect, it } from 'vitest';
import { loadWorkerConfig } from './config';

describe('the worker configuration', () => {
  it('rolls up usage every 10 s after a 15 s grace, open minutes every 10 s, and keeps minutes 7 days, hours 90 and days 400 by default', () => {
    expect(loadWorkerConfig({}).usage).toEqual({
      rollupEveryMs: 10_000,
      graceS: 15,
      liveEveryMs: 10_000,
      retention: { minuteDays: 7, hourDays: 90, dayDays: 400 },
    });
  });

  it('refuses to keep minutes or hours for less time than a usage hash can wait to be rolled up, naming each key', () => {
    let error: unknown = null;
    try {
      loadWorkerConfig({ USAGE_RETENTION_MINUTE_DAYS: '2', USAGE_RETENTION_HOUR_DAYS: '1', USAGE_ROLLUP_EVERY_MS: 'often', USAGE_GRACE_S: '-1', USAGE_LIVE_EVERY_MS: '-5' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    for (const key of ['USAGE_RETENTION_MINUTE_DAYS', 'USAGE_RETENTION_HOUR_DAYS', 'USAGE_ROLLUP_EVERY_MS', 'USAGE_GRACE_S', 'USAGE_LIVE_EVERY_MS']) {
      expect((error as Error).message).toContain(`${key}:`);
    }
  });

  it('refuses a queue prefix without a hash tag on a Redis Cluster (each queue must stay in one slot), and takes it on one server', () => {
    const cluster = { REDIS_CLUSTER_NODES: '127.0.0.1:7000,127.0.0.1:7001' };
    for (const prefix of ['tollgate', '{}tollgate', 'tollgate{', 'tollgate}{']) {
      expect(() => loadWorkerConfig({ ...cluster, QUEUE_PREFIX: prefix })).toThrow(/QUEUE_PREFIX: must hold a hash tag/);
      expect(loadWorkerConfig({ QUEUE_PREFIX: prefix }).queues.prefix).toBe(prefix);
    }
    for (const prefix of ['{tollgate}', 'prod:{tg}', 'a}{b}']) expect(loadWorkerConfig({ ...cluster, QUEUE_PREFIX: prefix }).queues.prefix).toBe(prefix);
    expect(loadWorkerConfig(cluster).queues.prefix).toBe('{tollgate}');
  });

  it('delivers webhooks with a 15 s timeout, 10 at once, dispatching every second, keeping the log 30 days, with no SMTP server', () => {
    expect(loadWorkerConfig({}).webhooks).toEqual({
      encryptionKeys: '',
      allowedDestinations: '',
      dispatchEveryMs: 1000,
      timeoutMs: 15_000,
      concurrency: 10,
      lockMs: 30_000,
      retentionDays: 30,
      smtpUrl: '',
      smtpFrom: 'Tollgate <tollgate@localhost.localdomain>',
    });
  });

  it('refuses a webhook encryption key that is not 32 bytes, or an allow-list entry that is no address, without echoing a key', () => {
    let error: unknown = null;
    try {
      loadWorkerConfig({ WEBHOOK_ENCRYPTION_KEYS: 'not-a-key-but-a-secret', WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1,intranet' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('WEBHOOK_ENCRYPTION_KEYS: key 1 is not 32 bytes');
    expect((error as Error).message).toContain('WEBHOOK_ALLOWED_DESTINATIONS: "intranet" is not an IP address or CIDR range');
    expect((error as Error).message).not.toContain('not-a-key-but-a-secret');
  });

  it('evaluates alerts every 15 s and keeps resolved ones 90 days by default, and refuses an interval past the 60 s lag', () => {
    expect(loadWorkerConfig({}).alerts).toEqual({ evaluateEveryMs: 15_000, retentionDays: 90 });
    expect(() => loadWorkerConfig({ ALERTS_EVALUATE_EVERY_MS: '120000' })).toThrow(/ALERTS_EVALUATE_EVERY_MS:/);
    expect(() => loadWorkerConfig({ ALERTS_RETENTION_DAYS: '0' })).toThrow(/ALERTS_RETENTION_DAYS:/);
  });

  it('keeps its schedules every 5 s, answers /health on 0.0.0.0:3002 (unhealthy after 3 missed runs) and stops within 8 s by default', () => {
    const config = loadWorkerConfig({});
    expect(config.schedules).toEqual({ checkEveryMs: 5_000 });
    expect(config.health).toEqual({ listener: { host: '0.0.0.0', port: 3002 }, missedRuns: 3 });
    expect(config.shutdown).toEqual({ timeoutMs: 8_000 });
    expect(loadWorkerConfig({ WORKER_HEALTH_PORT: '' }).health.listener).toBeNull();
    expect(loadWorkerConfig({ WORKER_HEALTH_PORT: '0', WORKER_HEALTH_HOST: '127.0.0.1' }).health.listener).toEqual({ host: '127.0.0.1', port: 0 });
  });

  it('refuses a health port, check interval, missed-run count or shutdown bound out of range, naming each key', () => {
    let error: unknown = null;
    try {
      loadWorkerConfig({ WORKER_HEALTH_PORT: '70000', WORKER_SCHEDULES_CHECK_MS: '10', WORKER_HEALTH_MISSED_RUNS: '0', SHUTDOWN_TIMEOUT_MS: 'soon' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    for (const key of ['WORKER_HEALTH_PORT', 'WORKER_SCHEDULES_CHECK_MS', 'WORKER_HEALTH_MISSED_RUNS', 'SHUTDOWN_TIMEOUT_MS']) expect((error as Error).message).toContain(`${key}:`);
  });

  it('connects to the primary the sentinels name, and refuses sentinels without a master name or beside a cluster, naming each key', () => {
    const sentinels = { REDIS_SENTINELS: '127.0.0.1:26379,127.0.0.1:26380', REDIS_SENTINEL_MASTER: 'tollgate' };
    expect(loadWorkerConfig(sentinels).redis.sentinel).toMatchObject({ sentinels: [{ host: '127.0.0.1', port: 26379 }, { host: '127.0.0.1', port: 26380 }], master: 'tollgate', tls: false });
    expect(loadWorkerConfig({}).redis.sentinel).toBeNull();
    expect(() => loadWorkerConfig({ REDIS_SENTINELS: '127.0.0.1:26379' })).toThrow(/REDIS_SENTINEL_MASTER: required with REDIS_SENTINELS/);
    expect(() => loadWorkerConfig({ ...sentinels, REDIS_CLUSTER_NODES: '127.0.0.1:7000' })).toThrow(/REDIS_SENTINELS: a Redis Cluster/);
    expect(() => loadWorkerConfig({ ...sentinels, REDIS_SENTINEL_TLS: 'on' })).toThrow(/REDIS_SENTINEL_TLS:/);
  });

  it('coordinates the quotas across regions in the first region by default, reaching every region\'s Redis, and refuses what cannot work', () => {
    const regions = { REGIONS: 'eu,us', REGION_REDIS_URLS: 'us=redis://us.example:6379,eu=rediss://:secret@eu.example:6380' };
    expect(loadWorkerConfig({}).coordinator).toBeNull();
    expect(loadWorkerConfig({ ...regions, REGION: 'eu' }).coordinator).toEqual({
      regions: [
        { name: 'eu', url: 'rediss://:secret@eu.example:6380' },
        { name: 'us', url: 'redis://us.example:6379' },
      ],
      everyMs: 1000,
    });
    expect(loadWorkerConfig({ ...regions, REGION: 'us' }).coordinator).toBeNull();
    expect(loadWorkerConfig({ ...regions, REGION: 'us', REGION_COORDINATOR: 'true', REBALANCE_MS: '250' }).coordinator?.everyMs).toBe(250);
    expect(loadWorkerConfig({ ...regions, REGION: 'us' }).region).toEqual({ name: 'us', index: 1, names: ['eu', 'us'] });
    expect(() => loadWorkerConfig({ REGIONS: 'eu,us', REGION: 'eu', REGION_REDIS_URLS: 'eu=redis://eu:6379' })).toThrow(/REGION_REDIS_URLS: the coordinator needs every region's Redis: us missing/);
    expect(() => loadWorkerConfig({ ...regions, REGION: 'eu', REGION_REDIS_URLS: 'eu=redis://eu:6379,us=http://us,ap=redis://ap:1' })).toThrow(/region "us": not a redis:\/\/ or rediss:\/\/ URL[\s\S]*"ap" is not one of REGIONS/);
    expect(() => loadWorkerConfig({ REGION_COORDINATOR: 'true' })).toThrow(/REGION_COORDINATOR: only with REGION and REGIONS/);
    // A URL's password is never part of an error.
    let message = '';
    try {
      loadWorkerConfig({ ...regions, REGION: 'eu', REGION_REDIS_URLS: 'eu=redis://:hunter2@eu:6379 x' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('REGION_REDIS_URLS');
    expect(message).not.toContain('hunter2');
  });
});
