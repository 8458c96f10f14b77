import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// A Redis Cluster routes a script by its declared KEYS, and moves a slot key by key: a key the script builds itself
// (`KEYS[1] .. ':' .. start`, ARGV[3] .. minute) is not seen by either, and during a slot migration the call runs
// where that key is not (docs/adr/0024-every-key-the-limit-script-touches-is-declared.md). So every Lua script of the
// repository (its .lua files, and Lua written inline in a TypeScript source's template string) names the key of each
// command as `KEYS[…]`, nothing else: keys travel between functions as indexes.

const root = path.resolve(__dirname, '../..');

/** Commands whose arguments hold no key. */
const KEYLESS = new Set(['TIME', 'PUBLISH']);
/** Commands every argument of which is a key. */
const ALL_KEYS = new Set(['MGET', 'DEL', 'UNLINK', 'EXISTS', 'TOUCH']);
const DECLARED = /^KEYS\[[^\]]+\]$/;

/**
 * The source with its comments blanked out (`code`), and with the insides of its strings blanked too (`bare`, where
 * calls are looked for): both as long as the source, so that an index in one is the same place in the other.
 */
function blanked(source: string): { code: string; bare: string } {
  let code = '';
  let bare = '';
  const blank = (text: string) => text.replace(/[^\n]/g, ' ');
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    let end = i + 1;
    if (c === '-' && source[i + 1] === '-') {
      const long = /^--\[(=*)\[/.exec(source.slice(i));
      const close = long ? source.indexOf(`]${long[1]}]`, i + long[0].length) : source.indexOf('\n', i);
      end = close === -1 ? source.length : close + (long ? long[1]!.length + 2 : 0);
      code += blank(source.slice(i, end));
      bare += blank(source.slice(i, end));
    } else if (c === "'" || c === '"') {
      while (end < source.length && source[end] !== c) end += source[end] === '\\' ? 2 : 1;
      end = Math.min(end + 1, source.length);
      code += source.slice(i, end);
      bare += c + blank(source.slice(i + 1, end - 1)) + (end - i > 1 ? c : '');
    } else {
      code += c;
      bare += c;
    }
    i = end;
  }
  return { code, bare };
}

/** The top-level arguments of the call whose `(` is at `open`, trimmed. */
function argumentsAt(code: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < code.length; i += 1) {
    const c = code[i];
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < code.length && code[j] !== c) j += code[j] === '\\' ? 2 : 1;
      i = j;
    } else if (c === '(' || c === '{' || c === '[') {
      depth += 1;
    } else if (c === ')' || c === '}' || c === ']') {
      depth -= 1;
      if (depth === 0) {
        args.push(code.slice(start, i).trim());
        return args;
      }
    } else if (c === ',' && depth === 1) {
      args.push(code.slice(start, i).trim());
      start = i + 1;
    }
  }
  return args;
}

/** Every command of `source` whose key is not a declared one: `line: call`. */
export function undeclaredKeys(source: string): string[] {
  const { code, bare } = blanked(source);
  const problems: string[] = [];
  const line = (at: number) => code.slice(0, at).split('\n').length;
  for (const match of bare.matchAll(/redis\s*\.\s*p?call\b\s*(\()?/g)) {
    const at = match.index;
    if (match[1] === undefined) {
      problems.push(`${line(at)}: redis.call used other than called (a key could reach it unseen)`);
      continue;
    }
    const args = argumentsAt(code, at + match[0].length - 1);
    const command = /^(['"])([A-Za-z]+)\1$/.exec(args[0] ?? '')?.[2]?.toUpperCase();
    const text = `${match[0]}${args.join(', ')})`;
    if (command === undefined) {
      problems.push(`${line(at)}: ${text}: the command must be a string literal`);
    } else if (!KEYLESS.has(command)) {
      const keys = ALL_KEYS.has(command) ? args.slice(1) : args.slice(1, 2);
      if (keys.length === 0 || keys.some((key) => !DECLARED.test(key))) problems.push(`${line(at)}: ${text}`);
    }
  }
  return problems;
}

const tracked = (...patterns: string[]) => execFileSync('git', ['ls-files', ...patterns], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);

/** The template strings of a TypeScript source that call Redis from Lua, each with the line it starts on. */
function inlineScripts(source: string): { line: number; lua: string }[] {
  const found: { line: number; lua: string }[] = [];
  for (const match of source.matchAll(/`([^`]*)`/g)) {
    if (/redis\s*\.\s*p?call/.test(match[1]!)) found.push({ line: source.slice(0, match.index).split('\n').length, lua: match[1]! });
  }
  return found;
}

describe('Lua scripts name every key as KEYS[…]', () => {
  const files = tracked('*.lua');
  const sources = tracked('apps/*.ts', 'libs/*.ts').filter((file) => !/\.(spec|int-spec|e2e)\.ts$/.test(file) && !file.endsWith('.d.ts'));
  const inline = sources.flatMap((file) => inlineScripts(readFileSync(path.join(root, file), 'utf8')).map(({ line, lua }) => ({ at: `${file}:${line}`, lua })));

  it('finds the scripts of the limiter, the rule store and the API', () => {
    expect(files).toEqual(expect.arrayContaining(['libs/limiter/src/lua/limit.lua', 'libs/rule-store/src/lua/put-rule-set.lua', 'apps/api/src/modules/check/lua/add-usage-counts.lua']));
  });

  it.each(files)('%s', (file) => {
    expect(undeclaredKeys(readFileSync(path.join(root, file), 'utf8'))).toEqual([]);
  });

  it('finds the Lua written inline in TypeScript (the sign-in back-off, the rollup\'s watermark)', () => {
    expect(inline.map(({ at }) => at.split(':')[0])).toEqual(expect.arrayContaining(['apps/api/src/modules/auth/back-off.ts', 'libs/usage/src/rollup.ts']));
  });

  it('finds no key but KEYS[…] in Lua written inline in TypeScript', () => {
    for (const { at, lua } of inline) expect(undeclaredKeys(lua), at).toEqual([]);
    expect(inlineScripts('const S = `redis.call(\'GET\', KEYS[1] .. ARGV[1])`;').map(({ lua }) => undeclaredKeys(lua))).toEqual([[expect.stringContaining('GET')]]);
  });

  it('refuses a key built from KEYS, ARGV or a local, a command in a variable, and redis.call passed around', () => {
    const refused = [
      "redis.call('INCRBY', KEYS[1] .. ':' .. start, 1)",
      "redis.call('HINCRBY', ARGV[3] .. minute, 'n', 1)",
      'local key = KEYS[1]\nredis.call(\'GET\', key)',
      "redis.pcall('GET', string.format('%s:%d', KEYS[1], 5))",
      "redis.call(command, KEYS[1])",
      "redis.call('MGET', KEYS[1], KEYS[1] .. ':x')",
      "redis.call('DEL')",
      'local call = redis.call\ncall(\'GET\', \'k\')',
    ];
    for (const source of refused) expect(undeclaredKeys(source), source).toHaveLength(1);
  });

  it('accepts KEYS[…] with any index, keyless commands, and ignores comments and strings', () => {
    const accepted = [
      "redis.call('GET', KEYS[k])",
      "redis.call('SET', KEYS[k + 1], string.format('%d', n), 'PXAT', at)",
      "redis.call('MGET', KEYS[k], KEYS[k + 1])",
      "local t = redis.call('TIME')",
      "redis.call('PUBLISH', ARGV[3], ARGV[4])",
      "-- redis.call('GET', key)\n--[[ redis.call('GET', key) ]]",
      "local s = 'redis.call(\"GET\", key)'",
    ];
    for (const source of accepted) expect(undeclaredKeys(source), source).toEqual([]);
  });
});
