import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as domain from '@tollgate/domain';
import { describe, expect, it } from 'vitest';
import { apiEnvSchema } from '../../apps/api/src/config/config';
import { dashboardEnvSchema } from '../../apps/dashboard/lib/config';
import { serverEnvSchema } from '../../apps/dashboard/lib/server-config.mts';
import { workerEnvSchema } from '../../apps/worker/src/config/config';
import { REPO_ROOT } from './repo-tree';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

/** Every variable an app reads, from the schemas the apps validate their environment with. */
const APP_VARIABLES: Record<string, readonly string[]> = {
  api: Object.keys(apiEnvSchema.shape),
  worker: Object.keys(workerEnvSchema.shape),
  'dashboard (app)': Object.keys(dashboardEnvSchema.shape),
  'dashboard (server.mts)': Object.keys(serverEnvSchema(domain).shape),
};

/** Variables an env file sets, or names commented out (`# METRICS_TOKEN=`). */
function envFileVariables(text: string): Set<string> {
  return new Set([...text.matchAll(/^[ \t]*(?:#[ \t]*)?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
}

/** The variables in the first column of the table under a Markdown heading (`| \`API_HOST\` / \`API_PORT\` | …`). */
function tableVariables(markdown: string, heading: string): Set<string> {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start === -1) return new Set();
  const end = lines.findIndex((line, i) => i > start && /^#{1,2} /.test(line));
  const firstCells = lines.slice(start + 1, end === -1 ? undefined : end).filter((line) => line.startsWith('|')).map((line) => line.split('|')[1] ?? '');
  return new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!)));
}

/** What the test suites read from the environment (test/support/env.ts): documented, though no app reads it. */
const TEST_VARIABLES = new Set([...read('test/support/env.ts').matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!));

/** What `npm start` and `npm test` themselves read (which servers to use or start, where to keep their state). */
const SCRIPT_VARIABLES = new Set([
  ...[...read('scripts/lib/services.mjs').matchAll(/mode\(given, '([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1]!),
  ...[...read('scripts/lib/bootstrap.mjs').matchAll(/readEnv\(\)\.(TOLLGATE_[A-Z0-9_]*)/g)].map((m) => m[1]!),
]);

const missing = (documented: Set<string>) =>
  Object.entries(APP_VARIABLES).flatMap(([app, names]) => names.filter((name) => !documented.has(name)).map((name) => `${name} (${app})`));
const unknown = (documented: Set<string>) => {
  const appVariables = new Set(Object.values(APP_VARIABLES).flat());
  return [...documented].filter((name) => !appVariables.has(name) && !TEST_VARIABLES.has(name) && !SCRIPT_VARIABLES.has(name));
};

describe('the environment variables the apps read', () => {
  it('come from every app schema', () => {
    expect(APP_VARIABLES.api).toContain('METRICS_TOKEN');
    expect(APP_VARIABLES.worker).toContain('QUEUE_PREFIX');
    expect(APP_VARIABLES['dashboard (app)']).toEqual(['TOLLGATE_API_URL', 'TENANT_UPGRADE_URL']);
    expect(APP_VARIABLES['dashboard (server.mts)']).toContain('DASHBOARD_TRUST_PROXY');
    // VITEST_POOL_ID is Vitest's, TEST_REDIS_DIR what the run sets for its own redis-server: neither is the user's to set.
    expect(TEST_VARIABLES).toEqual(new Set(['VITEST_POOL_ID', 'TEST_DATABASE_URL', 'TEST_REDIS_URL', 'TEST_REDIS_DIR']));
    expect(SCRIPT_VARIABLES).toEqual(new Set(['TOLLGATE_POSTGRES', 'TOLLGATE_REDIS', 'TOLLGATE_STATE_DIR']));
  });

  it('are each in .env.example, set or commented out, and it names nothing else', () => {
    const example = envFileVariables(read('.env.example'));
    expect(missing(example)).toEqual([]);
    expect(unknown(example)).toEqual([]);
  });

  it('take the values .env.example sets (copied to .env, it starts every app)', () => {
    const values = Object.fromEntries([...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(values.API_PORT).toBe('3000');
    for (const schema of [apiEnvSchema, workerEnvSchema, dashboardEnvSchema, serverEnvSchema(domain)]) {
      const parsed = schema.safeParse({ ...values, NODE_ENV: 'development' });
      expect(parsed.error?.issues ?? []).toEqual([]);
    }
  });

  it("are each in the README's configuration table, and it names nothing else", () => {
    const table = tableVariables(read('README.md'), '## Configuration');
    expect(missing(table)).toEqual([]);
    expect(unknown(table)).toEqual([]);
  });

  it('would be found missing or unknown (the readers, on samples)', () => {
    const example = envFileVariables('# comment naming API_PORT\nAPI_HOST=0.0.0.0\n# METRICS_TOKEN=\n  REDIS_URL=redis://x\nNOT_READ=1\n');
    expect([...example]).toEqual(['API_HOST', 'METRICS_TOKEN', 'REDIS_URL', 'NOT_READ']);
    expect(missing(example)).toContain('API_PORT (api)');
    expect(unknown(example)).toEqual(['NOT_READ']);
    const readme = '## Configuration\n\n| variable | app |\n|---|---|\n| `API_HOST` / `API_PORT` | api, `LOG_LEVEL` |\n\n## Next\n| `QUEUE_PREFIX` | worker |\n';
    expect([...tableVariables(readme, '## Configuration')]).toEqual(['API_HOST', 'API_PORT']);
  });
});
