// Shared by `npm start` and `npm test`: install what is missing, run on Node 24, build what changed.
// Plain JavaScript that also runs on an older Node: the very first run may happen before Node 24 is installed.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants as osConstants } from 'node:os';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(root, 'node_modules', '.bin');
export const node24 = join(bin, 'node');

/**
 * What `npm start` keeps between runs (git-ignored): its own servers' data and ports, the stamps of the steps it
 * skips when unchanged. TOLLGATE_STATE_DIR (environment or .env; relative: to the checkout) moves it (the test of
 * `npm start` uses a temporary folder).
 */
export const stateDir = resolve(root, readEnv().TOLLGATE_STATE_DIR || '.tollgate');

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

/**
 * The environment of the commands these scripts run: node_modules/.bin first on PATH; Nx without its daemon and
 * with its plugins in its own process (a worker process each took seconds to start); Next.js without telemetry.
 */
function commandEnv(env) {
  return {
    ...process.env,
    PATH: `${bin}:${process.env.PATH}`,
    NX_DAEMON: 'false',
    NX_NO_CLOUD: 'true',
    NX_ISOLATE_PLUGINS: 'false',
    NEXT_TELEMETRY_DISABLED: '1',
    ...env,
  };
}

/** Runs a command in the repo with node_modules/.bin first on PATH; exits when it fails. */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options, env: commandEnv(options.env) });
  if (result.status !== 0) fail(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
}

/** The pid of a process named `command` (`postgres`, `redis-server`) in `pidFile`, when it is alive; else null. */
export function livePid(pidFile, command) {
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  // A pid file a crash left may name a pid another program has since: only a process of that name counts.
  const ps = spawnSync('ps', ['-p', String(pid), '-o', 'comm='], { encoding: 'utf8' });
  return ps.status === 0 && basename(ps.stdout.trim()) === command ? pid : null; // macOS's ps gives the path
}

/** `npm ci` when node_modules is missing or older than package-lock.json. */
export function ensureInstalled() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  say('installing dependencies (npm ci)…');
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
}

/**
 * Re-runs this script on Node 24 (installed from the npm registry into node_modules/.bin) if needed: resolves at once
 * on Node 24, else never (this process exits with the run's status). A SIGINT, SIGTERM or SIGHUP sent to this
 * process alone (`kill <pid>`, or npm passing one on) reaches the run too, once: a Ctrl-C at a terminal reaches both
 * anyway, and the scripts take a repeated signal as the first.
 */
export function ensureNode24() {
  if (Number(process.versions.node.split('.')[0]) >= 24) return Promise.resolve();
  if (!existsSync(node24)) fail(`Node ${process.versions.node} is too old and node_modules/.bin/node is missing: run npm ci`);
  const child = spawn(node24, process.argv.slice(1), { stdio: 'inherit', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
  const passedOn = new Set();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (!passedOn.has(signal)) child.kill(signal);
      passedOn.add(signal);
    });
  }
  child.once('exit', (status, signal) => process.exit(status ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1)));
  return new Promise(() => {});
}

/** Reads .env (if any) under the defaults; real environment variables win. */
export function loadEnv() {
  return { ...defaults, ...readEnv() };
}

/** What .env (if any) and the environment set, without the defaults: real environment variables win. */
export function readEnv() {
  const file = join(root, '.env');
  const fromFile = {};
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^\s*([A-Z0-9_]+)\s*=\s*(.*?)\s*$/.exec(line);
      if (m) fromFile[m[1]] = m[2].replace(/^(['"])(.*)\1$/, '$2');
    }
  }
  return { ...fromFile, ...process.env };
}

/**
 * The stamp of a step (in `stateDir`/stamps, under `name`): the files' contents and the extra strings, and what
 * `state()` says of the step's outputs once it has run. `current`: the step ran to the end for the same inputs, its
 * outputs are as it left them (`state()`) and `outputs` (if any) all still exist. `record()` once the step has run.
 */
export function stepStamp(name, { files = [], extra = [], outputs = [], state = () => '' }) {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file}\0`).update(existsSync(join(root, file)) ? readFileSync(join(root, file)) : '(missing)').update('\0');
  for (const value of extra) hash.update(`${value}\0`);
  const digest = hash.digest('hex');
  const stamp = join(stateDir, 'stamps', name);
  const current = existsSync(stamp) && readFileSync(stamp, 'utf8') === `${digest}${state()}` && outputs.every((out) => existsSync(join(root, out)));
  if (!current) rmSync(stamp, { force: true });
  return {
    current,
    record: () => {
      mkdirSync(dirname(stamp), { recursive: true });
      writeFileSync(stamp, `${digest}${state()}`);
    },
  };
}

/** Runs `step` unless its stamp (stepStamp) is current. Returns whether it ran. */
export function unlessUnchanged(name, inputs, step) {
  const stamp = stepStamp(name, inputs);
  if (stamp.current) return false;
  step();
  stamp.record();
  return true;
}

/** The files of the checkout under `folders` that git tracks or would (not ignored), or null outside a git checkout. */
function checkoutFiles(folders) {
  const list = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...folders], { cwd: root, encoding: 'utf8' });
  return list.status === 0 ? list.stdout.split('\0').filter(Boolean) : null;
}

/**
 * What the builds left: each project's entry (size and time of its last write). A build by other hands (Nx, from
 * other sources) rewrites them, so the stamp of the last build no longer holds.
 */
function buildOutputsState() {
  const entries = ['apps/api/dist/main.js', 'apps/worker/dist/main.js', 'apps/dashboard/.next/BUILD_ID'];
  for (const lib of readdirSync(join(root, 'libs'))) entries.push(`libs/${lib}/dist/index.js`);
  return entries
    .map((entry) => {
      const path = join(root, entry);
      if (!existsSync(path)) return `\n${entry} missing`;
      const { size, mtimeMs } = statSync(path);
      return `\n${entry} ${size} ${mtimeMs}`;
    })
    .join('');
}

const packageVersion = (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;

/**
 * Generates the Prisma client (unless schema and Prisma are as when it last did) and builds every project
 * (libraries, api, worker, dashboard): Nx takes what its local cache holds for unchanged inputs. Only the output of
 * the builds that ran is shown (a build Nx found in its cache would replay its whole log), then one line: what was
 * built, or "built (cached)". When Nx fails, all it said is shown and the script exits. A build of every project
 * is skipped when nothing it reads changed since the last one (a stamp of the sources under apps/ and libs/, the
 * lockfile, the shared configuration and the checkout's path, as Nx's inputs) and its outputs are as it left them:
 * Nx alone took seconds, most of a second start, to find that out.
 */
export async function build(projects) {
  const generated = unlessUnchanged(
    'prisma-generate',
    {
      files: ['prisma/schema.prisma', 'prisma.config.ts'],
      extra: [packageVersion('prisma'), packageVersion('@prisma/client')],
      outputs: ['libs/db/src/generated/prisma/client.ts'],
    },
    () => {
      say('generating the Prisma client…');
      run('prisma', ['generate'], { stdio: ['ignore', 'ignore', 'inherit'] });
    },
  );
  if (!generated) say('the Prisma client is up to date');
  const sources = projects ? null : checkoutFiles(['apps', 'libs']);
  const stamp = sources
    ? stepStamp('build', {
        files: [...sources, 'package.json', 'package-lock.json', 'nx.json', 'tsconfig.base.json', '.swcrc', 'prisma/schema.prisma'],
        extra: [root],
        state: buildOutputsState,
      })
    : null;
  if (stamp?.current) return say('built (cached): nothing changed since the last build');
  say('building (what changed)…');
  const args = ['run-many', '-t', 'build', '--output-style=static', ...(projects ? [`--projects=${projects}`] : [])];
  const nx = spawn('nx', args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: commandEnv() });
  const stopNx = () => nx.kill('SIGTERM');
  process.once('exit', stopNx);
  const everything = [];
  const errors = [];
  const built = [];
  let tasks = 0;
  let shown = false; // whether the lines now read are those of a build that ran
  let pending = '';
  nx.stdout.setEncoding('utf8').on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop();
    for (const line of lines) {
      everything.push(line);
      const plain = stripVTControlCharacters(line);
      const task = /^> nx run ([\w.-]+):build\b(.*)$/.exec(plain);
      if (task) {
        tasks += 1;
        shown = !/\[(local cache|remote cache|existing outputs match the cache)/.test(task[2]);
        if (shown) built.push(task[1]);
      } else if (/^\s*NX\s/.test(plain)) shown = false; // Nx's own lines: the plan, the summary
      if (shown) console.log(line);
    }
  });
  nx.stderr.setEncoding('utf8').on('data', (chunk) => errors.push(chunk));
  const code = await new Promise((resolve) => nx.once('close', (status, signal) => resolve(status ?? signal)));
  process.removeListener('exit', stopNx);
  if (pending) everything.push(pending);
  if (code !== 0) {
    console.log(everything.join('\n'));
    process.stderr.write(errors.join(''));
    fail(`nx ${args.join(' ')} failed (exit ${code})`);
  }
  if (built.length > 0) process.stderr.write(errors.join(''));
  stamp?.record();
  say(built.length === 0 ? 'built (cached)' : `built ${built.join(', ')}${built.length < tasks ? " (the rest from Nx's cache)" : ''}`);
}
