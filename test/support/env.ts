/**
 * The lane of the test file running here: Vitest's worker (`VITEST_POOL_ID`, from 1). Files of one lane run one after
 * another; lanes run side by side, each on a database and a redis-server of its own (lane 1: `TEST_DATABASE_URL`,
 * `TEST_REDIS_URL`; lane n: what global-setup.ts made for it, in `<name>_LANE_<n>`), so files written to run alone keep
 * their stores to themselves.
 */
export const TEST_LANE = Number(process.env.VITEST_POOL_ID ?? '1') || 1;

/** Lane n's own value of `name` (lane 1 has none: it uses the variable itself). */
function ofLane(name: Parameters<typeof laneVariable>[0]): string | undefined {
  return TEST_LANE > 1 ? process.env[laneVariable(name, TEST_LANE)] : undefined;
}

/** The variable that holds lane `lane`'s value of `name` (set by global-setup.ts before the workers start). */
export function laneVariable(name: 'TEST_DATABASE_URL' | 'TEST_REDIS_URL' | 'TEST_REDIS_DIR', lane: number): string {
  return `${name}_LANE_${lane}`;
}

/** Where the tests find their own database (never the developer's demo data). */
export const TEST_DATABASE_URL = ofLane('TEST_DATABASE_URL') ?? process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_test';

/**
 * The test run's own Redis: a redis-server that `npm test` (or the suites' global setup) started on a free port,
 * never one a user runs. The unit suite has none: a unit test that reaches for it finds a host that does not exist.
 */
export const TEST_REDIS_URL = ofLane('TEST_REDIS_URL') ?? process.env.TEST_REDIS_URL ?? 'redis://test-redis-not-started.invalid:6379/0';

/** The folder of the redis-server `TEST_REDIS_URL` names. */
export const TEST_REDIS_DIR = ofLane('TEST_REDIS_DIR') ?? process.env.TEST_REDIS_DIR;

/** The scrape token of test APIs (`/metrics` needs one on the API's port). */
export const TEST_METRICS_TOKEN = 'test-metrics-token-not-a-secret';

/** Environment for an API or worker started by a test. */
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    LOG_LEVEL: 'silent',
    // Every test signs in from 127.0.0.1: the per-address limit would otherwise be shared by the whole run.
    LOGIN_ATTEMPTS_PER_MINUTE_PER_ADDRESS: '1000000',
    // The tests assert decisions, not latency: on a loaded machine a script call can take longer than the
    // production deadline (50 ms) and the check would be decided by its failure mode instead. Tests of the
    // failure modes set their own.
    DECISION_DEADLINE_MS: '2000',
    METRICS_TOKEN: TEST_METRICS_TOKEN,
    ...extra,
  };
}

/** Another Redis database next to the test one (`TEST_REDIS_URL`'s number + offset), for tests that need their own. */
export function testRedisUrl(offset: number): string {
  const url = new URL(TEST_REDIS_URL);
  url.pathname = `/${Number(url.pathname.slice(1) || 0) + offset}`;
  return url.toString();
}

/** A database next to the test one, named `<test database>_<suffix>`. */
export function testDatabaseUrl(suffix: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `${url.pathname}_${suffix}`;
  return url.toString();
}
