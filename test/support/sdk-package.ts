import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const root = path.resolve(__dirname, '../..');
const sdkDir = path.join(root, 'libs/sdk');
const consumerFixtures = path.join(root, 'test/fixtures/sdk-consumer');

/** A program's end: its exit code (or signal) and what it wrote. */
export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end, killed after `timeoutMs`; a failure is a value for the caller to judge. */
export function run(file: string, args: readonly string[], options: { cwd: string; timeoutMs: number; env?: Record<string, string> }): Promise<Ran> {
  // The npm of `npm test` passes its configuration down as npm_* variables (the repository's .npmrc among it),
  // which would reach the npm runs below in a project that is not the repository.
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))), ...options.env };
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: options.cwd, env, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve({ code: 0, signal: null, stdout, stderr });
      const { code, signal } = err as Error & { code?: unknown; signal?: NodeJS.Signals | null };
      // Not started at all (e.g. ENOENT): not an exit to judge.
      if (typeof code !== 'number' && !signal) return reject(err);
      resolve({ code: typeof code === 'number' ? code : null, signal: signal ?? null, stdout, stderr });
    });
  });
}

/** Runs a program that must succeed; its output is the error's message otherwise. */
async function mustRun(what: string, file: string, args: readonly string[], options: { cwd: string; timeoutMs: number }): Promise<Ran> {
  const ran = await run(file, args, options);
  if (ran.code !== 0) throw new Error(`${what} failed (exit ${ran.code ?? ran.signal}):\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

export interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  main?: string;
  types?: string;
  files?: string[];
  sideEffects?: boolean;
  engines?: Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export interface InstalledSdk {
  /** The temporary directory holding the tarballs and the project; removed by `remove()`. */
  dir: string;
  /** The paths inside the SDK's tarball, as `npm pack` listed them. */
  packed: string[];
  /** The SDK's package.json as packed. */
  manifest: PackageJson;
  /** The empty project the tarball was installed into, outside the repository. */
  project: string;
  /** The installed package: `<project>/node_modules/@tollgate/sdk`. */
  installed: string;
  remove(): void;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

/**
 * Builds the SDK (libs/sdk/scripts/build.mjs), packs it with `npm pack` in libs/sdk, and installs the tarball
 * into an empty project in a temporary directory, with nothing from the network: `npm install --offline`
 * with an empty cache of the project's own, the SDK's dependencies packed from the repository's node_modules
 * beside it, its peers (and what the consumer programs need besides: reflect-metadata, @types/node) linked
 * from the repository's node_modules afterwards, as a service has them installed. Copies in the programs of
 * test/fixtures/sdk-consumer/.
 */
export async function buildPackAndInstall(): Promise<InstalledSdk> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tollgate-sdk-package-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    await mustRun('building the SDK', process.execPath, [path.join(sdkDir, 'scripts/build.mjs')], { cwd: sdkDir, timeoutMs: 180_000 });
    // Scripts ignored: the build just ran, and prepack would run it again.
    const pack = await mustRun('npm pack', 'npm', ['pack', '--json', '--ignore-scripts', '--offline', '--pack-destination', dir], { cwd: sdkDir, timeoutMs: 60_000 });
    const [packed] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    if (!packed) throw new Error(`npm pack reported no package: ${pack.stdout}`);

    const tarball = path.join(dir, packed.filename);
    const extracted = path.join(dir, 'extracted');
    mkdirSync(extracted);
    await mustRun('reading the tarball', 'tar', ['-xzf', tarball, '-C', extracted, 'package/package.json'], { cwd: dir, timeoutMs: 30_000 });
    const manifest = readJson<PackageJson>(path.join(extracted, 'package', 'package.json'));

    const dependencies: Record<string, string> = { [manifest.name]: `file:${tarball}` };
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      const source = path.join(root, 'node_modules', name);
      if (Object.keys(readJson<PackageJson>(path.join(source, 'package.json')).dependencies ?? {}).length > 0) {
        throw new Error(`${name}, a dependency of the SDK, has dependencies of its own: pack those too before installing offline`);
      }
      const ran = await mustRun(`npm pack ${name}`, 'npm', ['pack', source, '--json', '--ignore-scripts', '--offline', '--pack-destination', dir], { cwd: dir, timeoutMs: 60_000 });
      const [dep] = JSON.parse(ran.stdout) as { filename: string }[];
      if (!dep) throw new Error(`npm pack ${name} reported no package: ${ran.stdout}`);
      dependencies[name] = `file:${path.join(dir, dep.filename)}`;
    }

    const project = path.join(dir, 'service');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'service', version: '1.0.0', private: true, dependencies }, null, 2));
    const install = ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--cache', path.join(dir, 'npm-cache')];
    await mustRun('npm install of the tarball', 'npm', install, { cwd: project, timeoutMs: 120_000 });

    // After the install, which would remove packages its package.json does not name.
    for (const name of [...Object.keys(manifest.peerDependencies ?? {}), 'reflect-metadata', '@types/node']) {
      const link = path.join(project, 'node_modules', name);
      mkdirSync(path.dirname(link), { recursive: true });
      symlinkSync(path.join(root, 'node_modules', name), link, 'dir');
    }
    cpSync(consumerFixtures, project, { recursive: true });
    return { dir, packed: packed.files.map((f) => f.path), manifest, project, installed: path.join(project, 'node_modules', manifest.name), remove };
  } catch (err) {
    remove();
    throw err;
  }
}
