import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const lib = (name: string, entry = 'index.ts') => fileURLToPath(new URL(`./libs/${name}/src/${entry}`, import.meta.url));

// Each project extends this file (plugins, aliases). Three suites: `unit` (*.spec.ts: pure, fast), `integration` (*.int-spec.ts: real Postgres and Redis),
// `e2e` (test/**/*.e2e.ts: started apps and Chromium). `npm test` runs all three (scripts/test.mjs).
const shared = {
  plugins: [swc.vite({ jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2023', keepClassNames: true }, module: { type: 'es6' } })],
  resolve: {
    alias: {
      // Subpaths before their package's name, which would otherwise match them as a prefix.
      '@tollgate/domain/wire': lib('domain', 'wire.ts'),
      '@tollgate/domain': lib('domain'),
      '@tollgate/limiter': lib('limiter'),
      '@tollgate/sdk/nest': lib('sdk', 'nest/index.ts'),
      '@tollgate/sdk/fastify': lib('sdk', 'fastify/index.ts'),
      '@tollgate/sdk': lib('sdk'),
      '@tollgate/db': lib('db'),
      '@tollgate/rules': lib('rules'),
      '@tollgate/rule-store': lib('rule-store'),
      '@tollgate/lua-script': lib('lua-script'),
      '@tollgate/nest-infra': lib('nest-infra'),
      '@tollgate/usage': lib('usage'),
      '@tollgate/webhooks': lib('webhooks'),
    },
  },
};
const exclude = ['**/node_modules/**', '**/dist/**', '**/.next/**'];

export default defineConfig({
  ...shared,
  test: {
    projects: [
      { test: { name: 'unit', include: ['{apps,libs,test,scripts}/**/*.spec.ts'], exclude } },
      {
        test: {
          name: 'integration',
          include: ['{apps,libs,test}/**/*.int-spec.ts'],
          exclude,
          globalSetup: ['test/support/global-setup.ts'],
          // Two files at a time, each lane on stores of its own (test/support/env.ts): most of a file's time is spent
          // waiting for Postgres, Redis and the servers it starts, so two lanes on two cores take ~40 % less time.
          maxWorkers: 2,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/**/*.e2e.ts'],
          exclude,
          globalSetup: ['test/support/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // A page waits for a server render and the rule set's propagation: on a loaded machine (CI beside other
          // work) that outlasts expect.poll's 1 s default. What is polled for is unchanged; only the wait is longer.
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});
