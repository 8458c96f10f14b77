// Shared by `npm start` and `npm test`: install what is missing, run on Node 24, check the services.
// Plain JavaScript that also runs on an older Node: the very first run may happen before Node 24 is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(root, 'node_modules', '.bin');
export const node24 = join(bin, 'node');

export const defaults = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/tollgate',
  REDIS_URL: 'redis://127.0.0.1:6379',
  API_PORT: '3000',
  DASHBOARD_PORT: '3001',
};

export function say(message) {
  console.log(`\x1b[1mtollgate ›\x1b[0m ${message}`);
}

export function fail(message) {
  console.error(`\n\x1b[31mtollgate › ${message}\x1b[0m\n`);
  process.exit(1);
}

/** Runs a command in the repo with node_modules/.bin first on PATH; exits when it fails. */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: 'inherit',
    ...options,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', ...options.env },
  });
  if (result.status !== 0) fail(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
}

/** `npm ci` when node_modules is missing or older than package-lock.json. */
export function ensureInstalled() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  say('installing dependencies (npm ci)…');
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
}

/** Re-runs this script on Node 24 (installed from the npm registry into node_modules/.bin) if needed. */
export function ensureNode24() {
  if (Number(process.versions.node.split('.')[0]) >= 24) return;
  if (!existsSync(node24)) fail(`Node ${process.versions.node} is too old and node_modules/.bin/node is missing: run npm ci`);
  const result = spawnSync(node24, process.argv.slice(1), { stdio: 'inherit', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
  process.exit(result.status ?? 1);
}

/** Reads .env (if any) under the defaults; real environment variables win. */
export function loadEnv() {
  const file = join(root, '.env');
  const fromFile = {};
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^\s*([A-Z0-9_]+)\s*=\s*(.*?)\s*$/.exec(line);
      if (m) fromFile[m[1]] = m[2].replace(/^(['"])(.*)\1$/, '$2');
    }
  }
  return { ...defaults, ...fromFile, ...process.env };
}

function reachable(host, port, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Fails with how to start them when Postgres or Redis (unless `redis: false`) does not answer. */
export async function checkServices(env, { redis: withRedis = true } = {}) {
  const pg = new URL(env.DATABASE_URL);
  const redis = withRedis ? new URL(env.REDIS_URL) : null;
  const [pgUp, redisUp] = await Promise.all([
    reachable(pg.hostname, pg.port || 5432),
    redis ? reachable(redis.hostname, redis.port || 6379) : true,
  ]);
  const down = [];
  if (!pgUp) down.push(`PostgreSQL at ${pg.hostname}:${pg.port || 5432} (DATABASE_URL)`);
  if (!redisUp && redis) down.push(`Redis at ${redis.hostname}:${redis.port || 6379} (REDIS_URL)`);
  if (down.length === 0) return redis ? checkRedisVersion(env.REDIS_URL) : undefined;
  fail(
    `cannot reach ${down.join(' and ')}.\n\n` +
      `Start them, then run the command again:\n` +
      `  • with Docker:          docker compose -f docker/compose.yml up -d postgres redis\n` +
      `  • with Debian packages: apt-get install -y postgresql redis-server\n` +
      `                          pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start\n` +
      `                          redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no\n` +
      `  • or point DATABASE_URL / REDIS_URL (environment or .env) at servers you have.`,
  );
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

/** Generates the Prisma client and builds every project (libraries, api, worker, dashboard). */
export function build(projects) {
  say('generating the Prisma client…');
  run('prisma', ['generate'], { stdio: ['ignore', 'ignore', 'inherit'] });
  say('building…');
  run('nx', ['run-many', '-t', 'build', '--output-style=static', ...(projects ? [`--projects=${projects}`] : [])]);
}
