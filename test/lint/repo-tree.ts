import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { RepoView } from './repo-paths';

/** The repository's root directory. */
export const REPO_ROOT = path.resolve(__dirname, '../..');

// Not the project's own text, though committed: the lock file.
const SKIPPED_FILES = new Set(['package-lock.json']);

/**
 * Whether the root `.gitignore` ignores a path. Its patterns are simple: a name (`.env`, `dist/`, `*.tsbuildinfo`)
 * matches any segment, a pattern with an inner `/` (`libs/db/src/generated/`) the path from the root down.
 */
export function gitignoreMatcher(gitignore: string): (relPath: string) => boolean {
  const patterns = gitignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('!'))
    .map((line) => line.replace(/^\//, '').replace(/\/$/, ''));
  const glob = (pattern: string) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`);
  const anchored = patterns.filter((p) => p.includes('/')).map(glob);
  const names = patterns.filter((p) => !p.includes('/')).map(glob);
  return (relPath) => {
    const segments = relPath.split('/');
    if (segments.some((s) => names.some((n) => n.test(s)))) return true;
    return segments.some((_, i) => anchored.some((a) => a.test(segments.slice(0, i + 1).join('/'))));
  };
}

/** The repository on disk, as the path checker sees it. */
export function diskRepo(root: string = REPO_ROOT): RepoView {
  const ignored = gitignoreMatcher(readFileSync(path.join(root, '.gitignore'), 'utf8'));
  return {
    kind(relPath) {
      try {
        return statSync(path.join(root, relPath)).isDirectory() ? 'dir' : 'file';
      } catch {
        return null;
      }
    },
    entries(relDir) {
      try {
        return readdirSync(path.join(root, relDir)).filter((name) => name !== '.git' && !ignored(path.posix.join(relDir, name)));
      } catch {
        return [];
      }
    },
    read: (relPath) => readFileSync(path.join(root, relPath), 'utf8'),
    ignored,
  };
}

/** Every file of the project (relative, `/`-separated) that git does not ignore, sorted. */
export function projectFiles(root: string = REPO_ROOT): string[] {
  const repo = diskRepo(root);
  const files: string[] = [];
  const walk = (relDir: string) => {
    for (const name of repo.entries(relDir)) {
      const rel = relDir === '.' ? name : `${relDir}/${name}`;
      if (repo.kind(rel) === 'dir') walk(rel);
      else if (!SKIPPED_FILES.has(name)) files.push(rel);
    }
  };
  walk('.');
  return files.sort();
}
