import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './repo-tree';

// The README's "Where things live" block and ADR 0001 (its layout and its table of tags) name every project of the
// workspace: a new library that neither names is a place a reader cannot find, and a tag whose boundaries nobody wrote.

interface Project {
  /** `libs/usage`: where its project.json is. */
  root: string;
  name: string;
  tags: string[];
}

/** The Nx projects of the workspace: each folder of package.json's workspaces that has a project.json. */
function workspaceProjects(root: string): Project[] {
  const { workspaces } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  return workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) throw new Error(`a workspace pattern this test cannot read: ${pattern}`);
    const parent = pattern.slice(0, -2);
    return readdirSync(path.join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(path.join(root, parent, entry.name, 'project.json')))
      .map((entry) => {
        const projectRoot = `${parent}/${entry.name}`;
        const json = JSON.parse(readFileSync(path.join(root, projectRoot, 'project.json'), 'utf8')) as { name: string; tags?: string[] };
        return { root: projectRoot, name: json.name, tags: json.tags ?? [] };
      });
  });
}

/** The first fenced block after the line that contains `marker`. */
function blockAfter(text: string, marker: string): string {
  const from = text.indexOf(marker);
  if (from < 0) throw new Error(`no "${marker}"`);
  const open = text.indexOf('```', from);
  const close = text.indexOf('```', open + 3);
  if (open < 0 || close < 0) throw new Error(`no fenced block after "${marker}"`);
  return text.slice(open + 3, close);
}

/** The projects whose folder a layout block does not name (`libs/usage/` or `libs/usage,` as a word of its own). */
function leftOutOfLayout(block: string, projects: readonly Project[]): string[] {
  return projects.filter((p) => !new RegExp(`(^|[\\s,])${p.root}(/|,|\\s|$)`, 'm').test(block)).map((p) => p.root);
}

/** The tags of `projects` that ADR 0001's table has no row for, or whose row does not name the project. */
function leftOutOfTagTable(adr: string, projects: readonly Project[]): string[] {
  const rows = new Map<string, string>();
  for (const line of adr.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const tag = /^`(type:[a-z-]+)`$/.exec(cells[1] ?? '')?.[1];
    if (tag) rows.set(tag, cells[2] ?? '');
  }
  return projects.flatMap((p) =>
    p.tags.filter((tag) => !new RegExp(`(^|[\\s,])${p.name}([\\s,(]|$)`).test(rows.get(tag) ?? '')).map((tag) => `${p.name} (${tag})`),
  );
}

describe('the workspace as the docs describe it', () => {
  const projects = workspaceProjects(REPO_ROOT);
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const adr = readFileSync(path.join(REPO_ROOT, 'docs/adr/0001-monorepo-layout.md'), 'utf8');

  it('reads the projects from the workspace', () => {
    expect(projects.map((p) => p.root)).toEqual(expect.arrayContaining(['apps/api', 'apps/worker', 'apps/dashboard', 'libs/domain', 'libs/usage', 'libs/webhooks']));
    expect(projects.every((p) => p.tags.length > 0)).toBe(true);
  });

  it("names every project in the README's layout", () => {
    expect(leftOutOfLayout(blockAfter(readme, '## Where things live'), projects)).toEqual([]);
  });

  it("names every project in ADR 0001's layout, and each of its tags in the tag table", () => {
    expect(leftOutOfLayout(blockAfter(adr, '**Layout**'), projects)).toEqual([]);
    expect(leftOutOfTagTable(adr, projects)).toEqual([]);
  });

  it('fails a project the layout or the table leaves out', () => {
    const usage: Project = { root: 'libs/usage', name: 'usage', tags: ['type:usage'] };
    expect(leftOutOfLayout('libs/domain/   types\nlibs/rules, libs/usages\n', [usage])).toEqual(['libs/usage']);
    expect(leftOutOfLayout('libs/rules, libs/usage\n', [usage])).toEqual([]);
    expect(leftOutOfTagTable('| `type:usage` | usage-ish (no) | `type:domain` |', [usage])).toEqual(['usage (type:usage)']);
    expect(leftOutOfTagTable('| `type:data` | usage | `type:domain` |', [usage])).toEqual(['usage (type:usage)']);
    expect(leftOutOfTagTable('| `type:usage` | usage (counting) | `type:domain` |', [usage])).toEqual([]);
  });
});
