import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './repo-tree';

// A file says what its class is (ADR 0001, "Names in the API"): `x-y.service.ts` holds `XYService`; an injectable that
// is something more definite is named for it, file and class alike (`self-limiter.ts`: `SelfLimiter`).

/**
 * Named before the rule, each for what it is (the class a file holds is beside it): renamed as auth's were (`x.ts` for
 * `X`), they leave this list.
 */
const NOT_YET_RENAMED: ReadonlyMap<string, string> = new Map([
  ['apps/api/src/modules/check/resilient-limiter.service.ts', 'ResilientLimiter'],
  ['apps/api/src/modules/check/usage-recorder.service.ts', 'UsageRecorder'],
  ['apps/api/src/modules/rules/rule-publisher.service.ts', 'RulePublisher'],
  ['apps/api/src/modules/rules/rules-in-force.service.ts', 'RulesInForce'],
]);

/** `rule-change.service.ts` → `RuleChangeService`. */
function serviceClassOf(file: string): string {
  const base = path.basename(file, '.service.ts');
  return `${base.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}Service`;
}

/** The files of `dir` (relative to the repository) whose names end in `.service.ts`, at any depth. */
function serviceFiles(dir: string): string[] {
  return readdirSync(path.join(REPO_ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.service.ts'))
    .map((e) => path.relative(REPO_ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

const exportsClass = (text: string, name: string) => new RegExp(`^export (abstract )?class ${name}\\b`, 'm').test(text);

describe('service files', () => {
  const files = [...serviceFiles('apps/api/src'), ...serviceFiles('apps/worker/src')];

  it('each hold the class their name says (x.service.ts: XService)', () => {
    expect(files.length).toBeGreaterThan(0);
    const misnamed = files.filter((f) => !NOT_YET_RENAMED.has(f) && !exportsClass(readFileSync(path.join(REPO_ROOT, f), 'utf8'), serviceClassOf(f)));
    expect(misnamed).toEqual([]);
    // A file still on the list holds the class the list says (renamed files are simply gone from `files`).
    const stale = [...NOT_YET_RENAMED].filter(([f, name]) => files.includes(f) && !exportsClass(readFileSync(path.join(REPO_ROOT, f), 'utf8'), name));
    expect(stale).toEqual([]);
  });

  it('names the class of a file as the rule says', () => {
    expect(serviceClassOf('apps/api/src/modules/rules/rule-change.service.ts')).toBe('RuleChangeService');
    expect(serviceClassOf('metrics.service.ts')).toBe('MetricsService');
  });
});
