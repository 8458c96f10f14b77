import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

// eslint.config.mjs computes the Nx project graph in-process: no daemon, no Nx Cloud, no network.
process.env.NX_DAEMON = 'false';
process.env.NX_NO_CLOUD = 'true';

const root = path.resolve(__dirname, '../..');
const RULE = '@nx/enforce-module-boundaries';
// The first lint loads the config, which builds the project graph: seconds, not milliseconds.
const slow = { timeout: 60_000 };

let eslint: ESLint;

/** The boundary errors for `code` linted as the file at `file` (relative to the repo root; need not exist). */
async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  expect(result, `no lint result for ${file}`).toBeDefined();
  return (result?.messages ?? []).filter((m) => m.ruleId === RULE && m.severity === 2).map((m) => m.message);
}

const importing = (name: string, from: string) => `import { ${name} } from '${from}';\nexport const probe = ${name};\n`;

describe('module boundaries (Nx project tags)', () => {
  beforeAll(() => {
    eslint = new ESLint({ cwd: root });
  });

  it('refuses @tollgate/db inside libs/limiter', slow, async () => {
    const errors = await boundaryErrors('libs/limiter/src/probe.ts', importing('PrismaClient', '@tollgate/db'));
    expect(errors).toEqual([
      expect.stringContaining('"type:limiter" can only depend on libs tagged with "type:domain"'),
    ]);
  });

  it('keeps libs/rules pure (no database, no Redis) and libs/lua-script free of Tollgate', slow, async () => {
    expect(await boundaryErrors('libs/rules/src/probe.ts', importing('PrismaClient', '@tollgate/db'))).toEqual([
      expect.stringContaining('"type:rules" can only depend on libs tagged with'),
    ]);
    expect(await boundaryErrors('libs/rules/src/probe.ts', importing('Redis', 'ioredis'))).toEqual([expect.stringContaining('not allowed to import "ioredis"')]);
    expect(await boundaryErrors('libs/rules/src/probe.ts', importing('RuleSetStore', '@tollgate/rule-store'))).toHaveLength(1);
    expect(await boundaryErrors('libs/lua-script/src/probe.ts', importing('ErrorCode', '@tollgate/domain'))).toHaveLength(1);
    expect(await boundaryErrors('libs/rule-store/src/probe.ts', importing('compileRuleSet', '@tollgate/rules'))).toEqual([]);
  });

  it('refuses a relative import from libs/domain into an app', slow, async () => {
    const code = importing('bootstrap', '../../../apps/api/src/main');
    const errors = await boundaryErrors('libs/domain/src/probe.ts', code);
    expect(errors).toEqual([expect.stringContaining('cannot be imported by a relative or absolute path')]);
  });

  it('refuses one app importing another', slow, async () => {
    const errors = await boundaryErrors('apps/worker/src/probe.ts', importing('bootstrap', '../../api/src/main'));
    expect(errors).toHaveLength(1);
  });

  it('refuses Nest inside libs/limiter', slow, async () => {
    const errors = await boundaryErrors('libs/limiter/src/probe.ts', importing('Injectable', '@nestjs/common'));
    expect(errors).toEqual([expect.stringContaining('not allowed to import "@nestjs/common"')]);
  });

  it('lets a test beside the code use test/support, and nothing else outside its project', slow, async () => {
    const file = 'libs/limiter/src/redis/probe.int-spec.ts';
    expect(await boundaryErrors(file, importing('TEST_REDIS_URL', '../../../../test/support/env'))).toEqual([]);
    expect(await boundaryErrors(file, importing('bootstrap', '../../../../apps/api/src/main'))).toHaveLength(1);
  });

  it('lets the SDK import only @tollgate/domain/wire of the domain, which its published build carries', slow, async () => {
    const restricted = async (file: string, from: string) => {
      const [result] = await eslint.lintText(importing('ErrorCode', from), { filePath: path.join(root, file) });
      return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === RULE).map((m) => m.message);
    };
    expect(await restricted('libs/sdk/src/probe.ts', '@tollgate/domain/wire')).toEqual([]);
    expect(await restricted('libs/sdk/src/probe.ts', '@tollgate/domain')).toEqual([expect.stringContaining('carries only @tollgate/domain/wire')]);
    const limiter = await restricted('libs/sdk/src/nest/probe.ts', '@tollgate/limiter');
    expect(limiter).toHaveLength(2);
    expect(limiter).toEqual(
      expect.arrayContaining([expect.stringContaining('carries only @tollgate/domain/wire'), expect.stringContaining('"type:sdk" can only depend on libs tagged with "type:domain"')]),
    );
  });

  it('allows @tollgate/domain inside libs/limiter', slow, async () => {
    const errors = await boundaryErrors('libs/limiter/src/probe.ts', importing('ErrorCode', '@tollgate/domain'));
    expect(errors).toEqual([]);
  });
});
