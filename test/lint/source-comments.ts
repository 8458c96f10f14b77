import path from 'node:path';
import ts from 'typescript';

/** How a file's comments are written, or null when its comments are not read. */
export type CommentSyntax = 'script' | 'lua' | 'hash';

const SCRIPT_EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts', '.mjs', '.cjs', '.js']);
const HASH_EXTENSIONS = new Set(['.yml', '.yaml', '.template']);

export function commentSyntaxOf(file: string): CommentSyntax | null {
  const base = path.basename(file);
  const ext = path.extname(file);
  if (SCRIPT_EXTENSIONS.has(ext)) return 'script';
  if (ext === '.lua') return 'lua';
  if (HASH_EXTENSIONS.has(ext) || base === 'Dockerfile' || base.endsWith('.Dockerfile') || base === 'Caddyfile') return 'hash';
  return null;
}

/**
 * The text of `source` with everything but its comments replaced by spaces (line breaks kept, so positions and
 * line numbers stay those of the file). Script files go through TypeScript's parser, so `//` inside a string,
 * a template or a regular expression is never taken for a comment.
 */
export function commentsOnly(file: string, source: string, syntax: CommentSyntax): string {
  const ranges = syntax === 'script' ? scriptComments(file, source) : syntax === 'lua' ? lineComments(source, '--') : lineComments(withoutParserDirectives(file, source), '#');
  const kept = source.split('').map((ch): string => (ch === '\n' ? '\n' : ' ')); // UTF-16 units, as the ranges count
  for (const [start, end] of ranges) for (let i = start; i < end; i++) kept[i] = source[i] ?? ' ';
  return kept.join('');
}

function scriptComments(file: string, source: string): Array<[number, number]> {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : /\.[mc]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, kind);
  const seen = new Map<number, number>();
  const collect = (ranges: ts.CommentRange[] | undefined) => ranges?.forEach((r) => seen.set(r.pos, r.end));
  // Comments are trivia in front of (or after) tokens: visit every token, the end-of-file one included.
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(source, node.pos));
    collect(ts.getTrailingCommentRanges(source, node.end));
    for (const child of node.getChildren(sourceFile)) visit(child);
  };
  visit(sourceFile);
  return [...seen];
}

/** A Dockerfile's leading parser directives (`# syntax=…`) are no comments; the image they name is no file. Blanked, same length. */
function withoutParserDirectives(file: string, source: string): string {
  if (!/(^|\.)Dockerfile$/.test(path.basename(file))) return source;
  return source.replace(/^(?:#\s*(?:syntax|escape|check)\s*=.*\n)+/i, (directives) => directives.replace(/[^\n]/g, ' '));
}

/** Line comments that start at `marker` outside quotes (Lua's `--`, YAML's, Dockerfiles' and Caddy's `#`). */
function lineComments(source: string, marker: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let offset = 0;
  for (const line of source.split('\n')) {
    let quote: string | null = null;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!;
      if (quote) {
        if (ch === '\\') i++;
        else if (ch === quote) quote = null;
      } else if (ch === '"' || ch === "'") {
        quote = ch;
      } else if (line.startsWith(marker, i) && (marker !== '#' || i === 0 || /\s/.test(line[i - 1]!))) {
        ranges.push([offset + i, offset + line.length]);
        break;
      }
    }
    offset += line.length + 1;
  }
  return ranges;
}
