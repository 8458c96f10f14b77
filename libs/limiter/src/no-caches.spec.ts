import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The engines keep nothing about rules, tenants or subjects between calls: what a decision needs is prepared once by
// the caller (`prepareRules`), and anything else is computed per call. A cache keyed by identity or kept at module
// level would come back silently; this test names it. Instance state (the memory engine's store, the Redis clock's
// offsets) is the engine's data, not a cache of a function, and stays allowed.

const CACHES = new Set(['Map', 'WeakMap', 'WeakSet', 'ExpiringLru']);
const IDENTITY_KEYED = new Set(['WeakMap', 'WeakSet']);

/** `new WeakMap`/`new WeakSet` anywhere, and `new Map`/`new ExpiringLru` outside a function or an instance field. */
function cachesIn(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && CACHES.has(node.expression.text)) {
      const name = node.expression.text;
      if (IDENTITY_KEYED.has(name) || !insideCall(node)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push(`${fileName}:${line + 1} new ${name}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Whether `node` runs per call or per instance: inside a function, or in a class's non-static field. */
function insideCall(node: ts.Node): boolean {
  for (let at = node.parent; at !== undefined; at = at.parent) {
    if (ts.isFunctionLike(at)) return true;
    if (ts.isPropertyDeclaration(at)) return !(ts.getCombinedModifierFlags(at) & ts.ModifierFlags.Static);
  }
  return false;
}

/** The library's own sources: what its build ships (no tests, no contract suite, no test support). */
function librarySources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'contract-suite' ? [] : librarySources(path);
    const test = /\.(spec|int-spec|suite)\.ts$/.test(entry.name) || entry.name === 'redis-test-support.ts';
    return entry.name.endsWith('.ts') && !test ? [path] : [];
  });
}

describe('libs/limiter keeps no caches', () => {
  it('finds an identity cache, a module-level Map or LRU and a static one, and leaves instance state alone', () => {
    const probe = [
      'const resolved = new WeakMap<object, string>();',
      'export const hashes = new ExpiringLru<string>(10);',
      'const plans = new Map<string, number>();',
      'class Engine { static seen = new Map(); private readonly store = new ExpiringLru(5); run() { const m = new Map(); return m; } }',
    ].join('\n');
    expect(cachesIn('probe.ts', probe)).toEqual(['probe.ts:1 new WeakMap', 'probe.ts:2 new ExpiringLru', 'probe.ts:3 new Map', 'probe.ts:4 new Map']);
  });

  it('holds in every source file of the library', () => {
    const sources = librarySources(__dirname);
    expect(sources.length).toBeGreaterThan(10);
    const found = sources.flatMap((path) => cachesIn(relative(__dirname, path), readFileSync(path, 'utf8')));
    expect(found).toEqual([]);
  });
});
