import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { ErrorCode, errorHttpStatus } from '@tollgate/domain';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackAndInstall, type InstalledSdk, root, run } from '../support/sdk-package';

// @tollgate/sdk as a service gets it from the registry: built, packed by `npm pack` in libs/sdk, installed from
// the tarball into an empty project outside the repository (nothing fetched: test/support/sdk-package.ts),
// then type-checked and run there. Neither libs/domain nor the repository's aliases are reachable from that
// project, so a package that reaches into the monorepo, misses a declaration or a dependency fails here.
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
const slow = { timeout: 120_000 };

// Strict, and the package's declarations checked as well: with skipLibCheck a `.d.ts` that imports a module
// which is not installed would pass, its types silently `any`.
const consumerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  target: 'ES2023',
  lib: ['ES2023'],
  types: ['node'],
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
};

const packageName = (spec: string) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
const inside = (dir: string, file: string) => file.startsWith(dir + path.sep);

describe('@tollgate/sdk as published', () => {
  let sdk: InstalledSdk;

  beforeAll(async () => {
    sdk = await buildPackAndInstall();
  }, 300_000);
  afterAll(() => sdk?.remove());

  /** Runs tsc in the consumer project with a tsconfig of these options over these files. */
  async function typeCheck(name: string, compilerOptions: Record<string, unknown>, files: string[]) {
    writeFileSync(path.join(sdk.project, name), JSON.stringify({ compilerOptions, files }, null, 2));
    return run(process.execPath, [tsc, '-p', name, '--pretty', 'false'], { cwd: sdk.project, timeoutMs: 110_000 });
  }

  it('holds the built .js and .d.ts of each entry point, its README and LICENSE, and no @tollgate package', () => {
    const { manifest, packed } = sdk;
    expect(manifest).toMatchObject({ name: '@tollgate/sdk', license: 'Apache-2.0', sideEffects: false, files: ['dist'], main: './dist/index.js', types: './dist/index.d.ts' });
    expect(manifest.private).toBeUndefined();
    expect(manifest.engines?.node).toMatch(/^>=\d+\.\d+/);
    expect(Object.keys(manifest.exports ?? {})).toEqual(['.', './nest', './fastify', './package.json']);
    for (const entry of ['.', './nest', './fastify']) {
      const target = manifest.exports?.[entry];
      expect(target, entry).toEqual({ types: expect.stringMatching(/^\.\/dist\/.+\.d\.ts$/), default: expect.stringMatching(/^\.\/dist\/.+\.js$/) });
      if (typeof target !== 'object') continue;
      expect(packed, entry).toContain(target.types?.slice(2));
      expect(packed, entry).toContain(target.default?.slice(2));
    }
    expect(packed.filter((p) => !p.startsWith('dist/')).sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
    const modules = packed.filter((p) => p.endsWith('.js'));
    expect(modules.length).toBeGreaterThan(3);
    expect(modules.filter((p) => !packed.includes(p.replace(/\.js$/, '.d.ts')))).toEqual([]);

    const named = [manifest.dependencies, manifest.peerDependencies, manifest.optionalDependencies, manifest.devDependencies].flatMap((d) => Object.keys(d ?? {}));
    expect(named.filter((n) => n.startsWith('@tollgate/'))).toEqual([]);
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).toEqual(['@nestjs/common', '@nestjs/core', 'fastify', 'rxjs']);
    expect(Object.values(manifest.peerDependenciesMeta ?? {})).toEqual([{ optional: true }, { optional: true }, { optional: true }, { optional: true }]);
  });

  it('reaches only into its own files, Node built-ins and the packages it declares', () => {
    const declared = new Set([...Object.keys(sdk.manifest.dependencies ?? {}), ...Object.keys(sdk.manifest.peerDependencies ?? {})]);
    const reached: string[] = [];
    const strays: string[] = [];
    for (const file of sdk.packed.filter((p) => p.endsWith('.js') || p.endsWith('.d.ts'))) {
      const full = path.join(sdk.installed, file);
      const endings = file.endsWith('.d.ts') ? ['.d.ts', '/index.d.ts'] : ['.js', '/index.js'];
      for (const { fileName: spec } of ts.preProcessFile(readFileSync(full, 'utf8'), true, true).importedFiles) {
        reached.push(spec);
        if (spec.startsWith('.')) {
          const target = path.resolve(path.dirname(full), spec);
          if (!inside(sdk.installed, target) || !endings.some((e) => existsSync(target + e))) strays.push(`${file} → ${spec}`);
        } else if (!spec.startsWith('node:') && !builtinModules.includes(spec) && !declared.has(packageName(spec))) {
          strays.push(`${file} → ${spec}`);
        }
      }
    }
    // What the guard and the plugin load, and the domain's copy inside the package.
    expect(reached).toEqual(expect.arrayContaining(['@nestjs/common', '@nestjs/core', 'fastify', 'fastify-plugin', './domain/wire']));
    expect(strays).toEqual([]);
  });

  it('type-checks a strict service using the client, the Nest guard and the Fastify plugin against the package alone', slow, async () => {
    // The service as a CommonJS module and as an ES module (`nodenext`, which NestJS 12's ES-only packages need
    // in a CommonJS project anyway).
    copyFileSync(path.join(sdk.project, 'consumer.ts'), path.join(sdk.project, 'consumer.mts'));
    const nodenext = await typeCheck('tsconfig.json', { ...consumerOptions, module: 'nodenext', moduleResolution: 'nodenext' }, ['consumer.ts', 'consumer.mts']);
    expect(nodenext.stdout + nodenext.stderr).toBe('');
    expect(nodenext.code).toBe(0);
  });

  it('type-checks the same service resolved as projects that predate `exports` do', slow, async () => {
    // `node10` reads no `exports`: the subpaths' types come from `typesVersions`.
    const node10 = await typeCheck('tsconfig.node10.json', { ...consumerOptions, module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true }, ['consumer.ts']);
    expect(node10.stdout + node10.stderr).toBe('');
    expect(node10.code).toBe(0);
  });

  it('ships the error codes and the check types as the domain has them now', slow, async () => {
    const paths = { '@tollgate/domain/wire': [path.join(root, 'libs/domain/src/wire.ts')] };
    const contract = await typeCheck('tsconfig.contract.json', { ...consumerOptions, module: 'nodenext', moduleResolution: 'nodenext', paths }, ['contract.ts']);
    expect(contract.stdout + contract.stderr).toBe('');
    expect(contract.code).toBe(0);
  });

  it('runs with require(): a client checks, Nest injects the guard, the guard and the Fastify plugin answer 429', slow, async () => {
    const ran = await run(process.execPath, ['run.cjs'], { cwd: sdk.project, timeoutMs: 60_000 });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const seen = JSON.parse(ran.stdout);
    const denied = { allowed: false, retryAfterMs: 2_500, ruleVersion: 7, headers: { 'Retry-After': '3', 'X-RateLimit-Remaining': '0' } };
    expect(seen.decision).toMatchObject(denied);
    expect(seen.asked[0]).toEqual({ url: 'http://tollgate.invalid/v1/check', authorization: 'Bearer tg_test_package', body: { tenant: 'acme', endpoint: 'GET /v1/items', cost: 2 } });
    expect(seen.refused).toEqual({ isTollgateError: true, isError: true, code: 'validation_failed', field: 'checks', status: 400 });
    // The API's stable codes, and the status each stands for.
    expect(seen.errorCodes).toEqual(ErrorCode);
    expect(seen.statuses).toEqual(errorHttpStatus);
    const rateLimited = { error: { code: 'rate_limited', message: expect.stringContaining('retry after 3 s') } };
    expect(seen.nest).toEqual({ status: 429, body: rateLimited, headers: denied.headers });
    expect(seen.fastify).toEqual({ status: 429, retryAfter: '3', body: rateLimited, health: 200 });
  });

  it('runs with import: its named exports reach ES modules, one copy shared with require()', slow, async () => {
    const ran = await run(process.execPath, ['run.mjs'], { cwd: sdk.project, timeoutMs: 60_000 });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ allowed: true, codes: Object.keys(ErrorCode).length, oneCopy: [true, true, true, true, true] });
  });
});
