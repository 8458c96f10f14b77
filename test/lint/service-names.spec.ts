import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './repo-tree';

// A file says what its class is (ADR 0001, "Names in the API"): `x-y.service.ts` holds `XYService`; an injectable that
// is something more definite is named for it, file and class alike (`self-limiter.ts`: `SelfLimiter`).

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
    const misnamed = files.filter((f) => !exportsClass(readFileSync(path.join(REPO_ROOT, f), 'utf8'), serviceClassOf(f)));
    expect(misnamed).toEqual([]);
  });

  it('names the class of a file as the rule says', () => {
    expect(serviceClassOf('apps/api/src/modules/rules/rule-change.service.ts')).toBe('RuleChangeService');
    expect(serviceClassOf('metrics.service.ts')).toBe('MetricsService');
  });
});
