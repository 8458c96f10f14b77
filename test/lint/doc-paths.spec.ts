import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenPaths, markdownAnchors, type RepoView } from './repo-paths';
import { diskRepo, gitignoreMatcher, projectFiles, REPO_ROOT } from './repo-tree';
import { commentsOnly, commentSyntaxOf } from './source-comments';

/** The broken paths of one file: all of a Markdown file, only the comments of source, YAML, Lua and Dockerfiles. */
function brokenIn(file: string, text: string, repo: RepoView) {
  if (file.endsWith('.md')) return brokenPaths(file, text, repo, true);
  const syntax = commentSyntaxOf(file);
  return syntax ? brokenPaths(file, commentsOnly(file, text, syntax), repo, false) : [];
}

/** A repository in memory: file paths and their text (directories are implied). */
function sample(files: Record<string, string>): RepoView {
  const dirs = new Set<string>(['.']);
  for (const file of Object.keys(files)) {
    for (let d = path.posix.dirname(file); d !== '.'; d = path.posix.dirname(d)) dirs.add(d);
  }
  const all = [...Object.keys(files), ...dirs];
  return {
    kind: (p) => (p in files ? 'file' : dirs.has(p) ? 'dir' : null),
    entries: (dir) => all.filter((p) => p !== '.' && path.posix.dirname(p) === dir).map((p) => path.posix.basename(p)),
    read: (p) => files[p] ?? '',
    ignored: gitignoreMatcher(files['.gitignore'] ?? ''),
  };
}

const SAMPLE = {
  'README.md': '# Tollgate\n## Behind a gateway (forward-auth)\n<a id="exact-admission"></a>\n',
  'docs/adr/0008-who-keeps-the-rule-set-in-redis.md': '# 0008\n',
  'apps/api/src/main.ts': '',
  'docker/compose.yml': '',
  'libs/limiter/README.md': '',
  'libs/limiter/src/redis/redis-engine.ts': '',
  'test/integration/redis-failover.int-spec.ts': '',
};

// Parsing every source file for its comments takes seconds on a loaded machine.
const WHOLE_TREE = { timeout: 60_000 };

describe('repository paths named in Markdown and comments', () => {
  it('exist, in every Markdown file and every source comment of the repository', WHOLE_TREE, () => {
    const repo = diskRepo();
    const files = projectFiles().filter((f) => f.endsWith('.md') || commentSyntaxOf(f) !== null);
    expect(files).toContain('README.md');
    expect(files).toContain('libs/limiter/src/lua/limit.lua');
    const broken = files.flatMap((file) => brokenIn(file, readFileSync(path.join(REPO_ROOT, file), 'utf8'), repo));
    expect(broken.map((b) => `${b.file}:${b.line}: ${b.mention} (${b.problem})`)).toEqual([]);
  });
});

describe('the path check on an in-memory repository', () => {
  const repo = sample({ ...SAMPLE, '.gitignore': 'node_modules/\ndist/\n.env\n' });
  const mentions = (file: string, text: string) => brokenIn(file, text, repo).map((b) => `${b.line}: ${b.mention}`);

  it('finds a missing file in a link (relative to the Markdown file), an anchor, inline code, plain text, and in a package README relative to its src/', () => {
    const markdown = [
      'See [the ADR](adr/0008-who-keeps-the-rule-set-in-redis.md) and [gone](adr/0099-gone.md).',
      'Jump to [gateways](../README.md#behind-a-gateway-forward-auth), [nowhere](../README.md#no-such-heading), [here](#nowhere).',
      'Proved by `test/integration/redis-failover.int-spec.ts` and `test/integration/redis-outage.int-spec.ts`.',
      'The entry point is apps/api/src/main.ts, not apps/api/src/server.ts.',
    ].join('\n');
    expect(mentions('docs/guide.md', markdown)).toEqual([
      '1: adr/0099-gone.md',
      '2: ../README.md#no-such-heading',
      '2: #nowhere',
      '3: test/integration/redis-outage.int-spec.ts',
      '4: apps/api/src/server.ts',
    ]);
    expect(mentions('libs/limiter/README.md', '`redis/redis-engine.ts` and `redis/redis-limiter.ts`, `src/lua/limit.lua`')).toEqual([
      '1: redis/redis-limiter.ts',
      '1: src/lua/limit.lua',
    ]);
  });

  it('finds a document named alone that is not in the repository', () => {
    expect(mentions('apps/api/src/main.ts', '// as CHANGELOG.md says; README.md has the rest\nexport {};\n')).toEqual(['1: CHANGELOG.md']);
  });

  it('reads only the comments of source files, whatever their syntax', () => {
    const ts = [
      "const url = 'docs/adr/0099-in-a-string.md'; // see docs/adr/0098-in-a-comment.md",
      '/** Block: test/integration/gone.int-spec.ts */',
      'const re = /\\/\\/ docs\\/adr\\/0097-in-a-regex.md/;',
      'const t = `// docs/adr/0096-in-a-template.md ${url}`;',
    ].join('\n');
    expect(mentions('apps/api/src/main.ts', ts)).toEqual(['1: docs/adr/0098-in-a-comment.md', '2: test/integration/gone.int-spec.ts']);
    expect(mentions('libs/limiter/src/lua/limit.lua', "local s = 'apps/x.ts' -- apps/api/src/gone.ts\n")).toEqual(['1: apps/api/src/gone.ts']);
    expect(mentions('docker/compose.yml', "image: 'a#b' # see docs/adr/0099-gone.md\n")).toEqual(['1: docs/adr/0099-gone.md']);
    expect(mentions('docker/api.Dockerfile', '# syntax=docker/dockerfile:1\n# built as docker/gone.Dockerfile says\nFROM node:24\n')).toEqual([
      '2: docker/gone.Dockerfile',
    ]);
  });

  it('takes no URL path, glob, placeholder, package name, issue reference, media type or ignored file for a missing path', () => {
    const markdown = [
      '`POST /v1/check` on http://localhost:3000/docs, and https://github.com/prisma/orm/issues/27403 or prisma/orm#27403.',
      'Globs: `apps/*`, `*.int-spec.ts`, `{apps,libs}/**/*.spec.ts`, `test/**/*.e2e.ts`; placeholders: docs/adr/0008-…, `apps/api/src/<module>/x.ts`.',
      '`@tollgate/sdk/nest`, `text/plain`, and/or, `docker/.env`, node_modules/.bin/node, apps/api/dist/main.js.',
      'Anchors: [gateways](../README.md#behind-a-gateway-forward-auth), [exact](../README.md#exact-admission), [adr](adr/0008-who-keeps-the-rule-set-in-redis.md).',
    ].join('\n');
    expect(mentions('docs/guide.md', markdown)).toEqual([]);
  });

  it('checks what comes before a placeholder or a glob', () => {
    expect(mentions('README.md', '`docs/adrs/0008-…`, `apps/web/*`, `libs/limiter/src/memory/<name>.ts`')).toEqual([
      '1: docs/adrs/0008-…',
      '1: apps/web/*',
      '1: libs/limiter/src/memory/<name>.ts',
    ]);
  });

  it('names the anchors GitHub gives headings, repeated ones numbered, and explicit ids', () => {
    expect([...markdownAnchors('# A `code` title\n## Behind a gateway (forward-auth)\n## Repeat\n## Repeat\n<a id="x-y"></a>\n```\n# not a heading\n```\n')]).toEqual([
      'a-code-title',
      'behind-a-gateway-forward-auth',
      'repeat',
      'repeat-1',
      'x-y',
    ]);
  });
});
