import path from 'node:path';

/** What the checker may ask of a repository: real files on disk, or an in-memory sample. Paths are relative, `/`-separated. */
export interface RepoView {
  /** The entry's kind, or null when nothing is there. */
  kind(relPath: string): 'file' | 'dir' | null;
  /** Names in a directory ([] when it is none). */
  entries(relDir: string): string[];
  /** A Markdown file's text, for its anchors. */
  read(relPath: string): string;
  /** Whether git ignores the path: made at run time (`docker/.env`), never in a checkout, so not checked. */
  ignored(relPath: string): boolean;
}

export interface BrokenPath {
  file: string;
  line: number;
  /** As written. */
  mention: string;
  problem: string;
}

// A placeholder or a glob ends what can be checked: `docs/adr/0008-…`, `apps/*`, `modules/<feature>/`, `${ROOT}/x`.
const PLACEHOLDER = /[*<>…{}$]|^\.{3,}$/;

// A path: segments of file-name characters joined by `/`, not inside a word, a URL (`//host/…`, `/v1/check`),
// a scoped package (`@tollgate/sdk/nest`) or a `host:port/path`.
const PATH_TOKEN = /(?<![\w.@/:~$\\-])(?:\.{1,2}\/)*[\w.][\w.()[\]-]*(?:\/[\w.()[\]@*<>…{}$-]*)+/g;
// A document named alone, in capitals (`BENCHMARKS.md`): in the repository root or beside the file that names it.
const BARE_DOCUMENT = /(?<![\w./-])[A-Z][A-Z0-9_-]*\.md\b/g;
const MARKDOWN_LINK = /\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/**
 * Every relative repository path `text` (the file `file`, or only its comments) names that does not exist, and
 * every Markdown link into the repository whose file or anchor does not exist. A mention is a path when its first
 * segment is `.`/`..`, a top-level directory of the repository, or an entry of the file's own directory (of its
 * `src/` too, for a package's Markdown); other slashed words (`text/plain`, `and/or`) are not paths.
 */
export function brokenPaths(file: string, text: string, repo: RepoView, markdown: boolean): BrokenPath[] {
  const broken: BrokenPath[] = [];
  const lineOf = lineIndex(text);
  const report = (index: number, mention: string, problem: string) => broken.push({ file, line: lineOf(index), mention, problem });
  const dir = path.posix.dirname(file);
  const linked = new Set<number>();

  if (markdown) {
    for (const m of text.matchAll(MARKDOWN_LINK)) {
      const target = m[1]!;
      const at = m.index + m[0].indexOf(target, 1 + m[0].indexOf(']('));
      linked.add(at);
      const problem = linkProblem(file, target, repo);
      if (problem) report(m.index, target, problem);
    }
  }

  const roots = new Map<string, string>(); // first segment → directory it is relative to
  const addRoots = (base: string) => {
    for (const name of repo.entries(base)) if (!roots.has(name)) roots.set(name, base);
  };
  addRoots(dir);
  if (markdown && repo.kind(path.posix.join(dir, 'src')) === 'dir') addRoots(path.posix.join(dir, 'src'));
  for (const name of repo.entries('.')) if (repo.kind(name) === 'dir') roots.set(name, '.');

  for (const m of text.matchAll(PATH_TOKEN)) {
    if (linked.has(m.index)) continue;
    const mention = trimPunctuation(m[0].split('](')[0]!); // [text](target): the text ends at `](`
    const end = m.index + m[0].length;
    if (text[end] === '#' && /\d/.test(text[end + 1] ?? '')) continue; // owner/repo#123: an issue of another project
    const target = resolveMention(mention, dir, roots);
    if (target === null || repo.ignored(target.path)) continue;
    if (repo.kind(target.path) === null) report(m.index, mention, target.partial ? `no directory ${target.path}` : `no file or directory ${target.path}`);
  }

  for (const m of text.matchAll(BARE_DOCUMENT)) {
    if (repo.kind(m[0]) === null && repo.kind(path.posix.join(dir, m[0])) === null) report(m.index, m[0], `no ${m[0]} in the repository root or beside ${file}`);
  }
  return broken.sort((a, b) => a.line - b.line);
}

/** The repository path a mention names (`partial`: the directory before a placeholder), or null when it names none. */
function resolveMention(mention: string, dir: string, roots: Map<string, string>): { path: string; partial: boolean } | null {
  const segments = mention.split('/');
  const first = segments[0]!;
  let base: string;
  if (first === '.' || first === '..') base = dir;
  else if (roots.has(first)) base = roots.get(first)!;
  else return null;
  const stop = segments.findIndex((s) => PLACEHOLDER.test(s));
  const checked = stop === -1 ? segments : segments.slice(0, stop);
  const resolved = path.posix.normalize(path.posix.join(base, ...checked));
  if (resolved.startsWith('..')) return null;
  return { path: resolved.replace(/\/$/, '') || '.', partial: stop !== -1 };
}

/** Drops what ends a sentence or closes a bracket opened before the path: `(see bench/lib.mjs).` → `bench/lib.mjs`. */
function trimPunctuation(token: string): string {
  let t = token;
  for (;;) {
    const before = t;
    t = t.replace(/[.,:;!?'"`]+$/, '');
    if (t.endsWith(')') && count(t, '(') < count(t, ')')) t = t.slice(0, -1);
    if (t.endsWith(']') && count(t, '[') < count(t, ']')) t = t.slice(0, -1);
    if (t === before) return t;
  }
}

function count(text: string, ch: string): number {
  return text.split(ch).length - 1;
}

/** Why a Markdown link's target is missing, or null when it is there (links out of the repository are not followed). */
function linkProblem(file: string, target: string, repo: RepoView): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//') || target.startsWith('/')) return null;
  const [rawPath = '', anchor] = target.split('#', 2);
  const linkedPath = decodeURIComponent(rawPath);
  const resolved = linkedPath === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), linkedPath)).replace(/\/$/, '');
  if (resolved.startsWith('..')) return `${target} leaves the repository`;
  if (repo.ignored(resolved)) return null;
  const kind = repo.kind(resolved);
  if (kind === null) return `no file or directory ${resolved}`;
  if (anchor && kind === 'file' && resolved.endsWith('.md') && !markdownAnchors(repo.read(resolved)).has(anchor)) return `no heading or anchor #${anchor} in ${resolved}`;
  return null;
}

/** The anchors GitHub gives a Markdown file's headings (`## Behind a gateway (forward-auth)` → `behind-a-gateway-forward-auth`), and its `<a id>`s. */
export function markdownAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const used = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/<[^>]+>/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = used.get(slug) ?? 0;
    used.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

function lineIndex(text: string): (index: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return (index) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}
