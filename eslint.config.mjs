// @ts-check
// Lint for the whole workspace: `npm run lint` (`eslint . --max-warnings=0`).
// Module boundaries (docs/adr/0001-monorepo-layout.md) are enforced on Nx project tags.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import { createProjectGraphAsync } from '@nx/devkit';
import prettier from 'eslint-config-prettier';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// @nx/enforce-module-boundaries only reads the cached project graph (.nx/workspace-data) and silently skips
// every check when there is none, or judges by stale tags when it is old. Build it here so a plain `eslint`
// run enforces the boundaries against the current project.json files. Honours NX_DAEMON=false.
try {
  await createProjectGraphAsync({ exitOnError: false });
} catch (err) {
  throw new Error('eslint.config.mjs: cannot compute the Nx project graph to check module boundaries', { cause: err });
}

const unusedVars = [
  'error',
  {
    argsIgnorePattern: '^_',
    varsIgnorePattern: '^_',
    caughtErrorsIgnorePattern: '^_',
    destructuredArrayIgnorePattern: '^_',
    ignoreRestSiblings: true,
  },
];

// Libraries that hold no infrastructure: no Nest, no Prisma, no database or queue clients.
const serverInfrastructure = ['@nestjs/*', '@prisma/*', 'pg', 'bullmq'];

// Nx project tags (project.json) and what each may import; apps never import each other.
const depConstraints = [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:domain', 'type:limiter', 'type:sdk', 'type:data', 'type:rules', 'type:store', 'type:script', 'type:infra', 'type:usage', 'type:webhooks'] },
  // Webhooks: endpoints, the transactional outbox (publishEvent), signing, the destination guard and one delivery
  // attempt (docs/adr/0017-webhooks.md); the queues that drive it are the worker's.
  { sourceTag: 'type:webhooks', onlyDependOnLibsWithTags: ['type:domain', 'type:data'], bannedExternalImports: ['@nestjs/*', 'bullmq'] },
  // Usage: its Redis layout (keys, fields), shared by the API that counts and the worker that rolls up, and the
  // UsageStore on Postgres (docs/adr/0015-usage-counting-and-rollups.md).
  { sourceTag: 'type:usage', onlyDependOnLibsWithTags: ['type:domain', 'type:limiter', 'type:data'] },
  // Nest wiring of Postgres and Redis shared by the api and the worker: one place for clients and their shutdown.
  { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:data'] },
  {
    sourceTag: 'type:ui',
    onlyDependOnLibsWithTags: ['type:domain'],
    bannedExternalImports: [...serverInfrastructure, 'ioredis'],
  },
  {
    sourceTag: 'type:limiter',
    onlyDependOnLibsWithTags: ['type:domain', 'type:script'],
    bannedExternalImports: serverInfrastructure,
  },
  { sourceTag: 'type:sdk', onlyDependOnLibsWithTags: ['type:domain'] },
  { sourceTag: 'type:data', onlyDependOnLibsWithTags: ['type:domain'] },
  // The rule set, pure: compile, match, diff, the snapshot's shape (no database, no Redis).
  {
    sourceTag: 'type:rules',
    onlyDependOnLibsWithTags: ['type:domain', 'type:limiter'],
    bannedExternalImports: [...serverInfrastructure, 'ioredis'],
  },
  // Where rule sets are kept: versions in Postgres, the rule set in Redis (a Lua script), snapshots read and written.
  { sourceTag: 'type:store', onlyDependOnLibsWithTags: ['type:domain', 'type:rules', 'type:data', 'type:script'] },
  // The Lua script runner (load, EVALSHA, EVAL after NOSCRIPT): no Tollgate dependency at all.
  { sourceTag: 'type:script', onlyDependOnLibsWithTags: [], bannedExternalImports: serverInfrastructure },
  {
    sourceTag: 'type:domain',
    onlyDependOnLibsWithTags: [],
    bannedExternalImports: [...serverInfrastructure, 'ioredis'],
  },
];

/** @param {string[]} allow imports exempt from every boundary check (regular expressions) */
function moduleBoundaries(allow) {
  return ['error', { enforceBuildableLibDependency: false, allow, depConstraints }];
}

export default defineConfig(
  globalIgnores([
    '**/dist/**',
    '**/.next/**',
    '**/generated/**',
    '**/node_modules/**',
    '**/coverage/**',
    'apps/dashboard/next-env.d.ts',
    '.nx/**',
  ]),

  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [js.configs.recommended],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } },
    rules: { 'no-unused-vars': unusedVars },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },

  {
    files: ['**/*.{ts,tsx,mts,cts}'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': unusedVars,
      // Every `any` carries `// eslint-disable-next-line @typescript-eslint/no-explicit-any -- <why>`.
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },

  {
    files: ['**/*.{ts,tsx,mts,cts,js,mjs,cjs}'],
    plugins: { '@nx': nx },
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries([]) },
  },
  {
    // The SDK is published without the domain: its build carries a copy of @tollgate/domain/wire, the
    // dependency-free part (libs/sdk/scripts/build.mjs). Tests beside the code are not published.
    files: ['libs/sdk/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@tollgate/(?!domain/wire$)',
              message: 'the published SDK carries only @tollgate/domain/wire of the monorepo (libs/sdk/scripts/build.mjs copies it in): import from there',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests beside the code share helpers in test/support/ (outside every project) by relative path.
    files: ['**/*.spec.{ts,tsx}', '**/*.int-spec.ts'],
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries(['^(\\.\\./)+test/support/']) },
  },

  prettier,
);
