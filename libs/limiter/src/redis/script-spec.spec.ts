import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALGORITHMS, type AlgorithmName } from '../contract';
import { prepareRules, ruleArgs } from '../prepared-rules';
import { ALGORITHM_CODES } from './keys';
import { ALGORITHM_ARGV, CALENDAR_ARGV, CALL_ARGV, COUNTED_HASH_KEY, DECISION_ARGV, FIRST_DECISION_ARGV, keysOf, MARKS, REGION_ARGV, REGION_FIXED_WINDOW_CODE, REPLY, RULE_ARGV, TALLY } from './script-spec';

// The Lua side of the boundary that script-spec.ts names: what limit.lua and its includes read, and what the script's
// header says, checked against the table the encoder uses. A position added on one side only fails here.

const LUA = join(__dirname, '..', 'lua');
const read = (file: string) => readFileSync(join(LUA, file), 'utf8');
/** A Lua source without its comments (no string of these files holds `--`). */
const code = (source: string) => source.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--.*$/gm, '');
const FILES = ['limit.lua', ...readdirSync(join(LUA, 'includes')).map((file) => join('includes', file))];
const ALL = FILES.map((file) => code(read(file))).join('\n');
const numbers = (text: string, pattern: RegExp) => [...new Set([...text.matchAll(pattern)].map((m) => Number(m[1])))].sort((a, b) => a - b);
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** The body of `local function <name>(…)` in `source`, up to the next top-level `end`. */
function functionBody(source: string, name: string): string {
  const start = source.indexOf(`local function ${name}(`);
  expect(start, name).toBeGreaterThanOrEqual(0);
  return source.slice(start, source.indexOf('\nend', start));
}

describe('limit.lua and script-spec.ts', () => {
  it('reads exactly the call\'s own ARGV by position, and its decisions from FIRST_DECISION on', () => {
    expect(numbers(ALL, /ARGV\[(\d+)\]/g)).toEqual(range(CALL_ARGV.length));
    expect(numbers(code(read('limit.lua')), /local FIRST_DECISION = (\d+)/g)).toEqual([FIRST_DECISION_ARGV]);
  });

  it('names by position only the usage hash it counts into', () => {
    expect(numbers(ALL, /KEYS\[(\d+)\]/g)).toEqual([COUNTED_HASH_KEY]);
  });

  it('documents in its header the positions the table names', () => {
    const header = read('limit.lua').slice(0, read('limit.lua').indexOf(']]'));
    expect(numbers(header, /^ {2}ARGV\[(\d+)\]/gm)).toEqual(range(CALL_ARGV.length));
    expect(header).toMatch(new RegExp(`^ {2}ARGV\\[${FIRST_DECISION_ARGV} \\.\\.\\]`, 'm'));
  });

  it('reads a decision\'s fields after its position and moves past them', () => {
    const limit = code(read('limit.lua'));
    expect(numbers(limit, /ARGV\[arg \+ (\d+)\]/g)).toEqual(range(DECISION_ARGV.length - 1));
    expect(limit).toContain(`arg = arg + ${DECISION_ARGV.length}`);
    expect(limit).toContain(`ARGV[arg] == '${MARKS.repeat}'`);
    expect(limit).toContain(`count ~= '${MARKS.same}' and count ~= '${MARKS.sameKeys}'`);
    expect(limit).toContain(`tallyText ~= '${MARKS.same}'`);
    expect(limit).toContain(`'^(%l+)${MARKS.shadow}?(%d*)$'`);
  });

  it('reads each algorithm\'s rule ARGV as many as the encoder sends', () => {
    const readRule = functionBody(code(read('includes/rules.lua')), 'readRule');
    expect(readRule).toContain(`arg = arg + ${RULE_ARGV.length}`);
    // The branches' returns in order: a calendar window, a fixed window, a sliding window, a sliding log, a bucket.
    const advances = [...readRule.matchAll(/return code, limit, window, .*?, arg(?: \+ (\d+))?(?:, share)?(?: end)?$/gm)].map((m) => Number(m[1] ?? 0));
    expect(advances).toEqual([CALENDAR_ARGV.length, 0, ALGORITHM_ARGV.sliding_window.length, ALGORITHM_ARGV.sliding_log.length, ALGORITHM_ARGV.token_bucket.length]);
    // One quota across regions reads its share before a calendar window's bounds.
    expect(readRule).toContain(`if code == '${REGION_FIXED_WINDOW_CODE}' then share, arg = ARGV[arg] + 0, arg + ${REGION_ARGV.length} end`);
    for (const algorithm of ALGORITHMS) {
      const rule = prepareRules([{ name: 'r', algorithm, limit: 10, windowMs: 60_000 }]).rules[0]!;
      expect(ruleArgs(rule), algorithm).toHaveLength(RULE_ARGV.length + ALGORITHM_ARGV[algorithm].length);
    }
    const calendar = prepareRules([{ name: 'd', algorithm: 'fixed_window', limit: 10, windowMs: 0, calendar: { unit: 'day', timeZone: 'UTC' } }]);
    expect(calendar.ruleArgs[0]).toHaveLength(RULE_ARGV.length);
    const regions = { index: 1, count: 3 };
    const global = prepareRules([{ name: 'g', algorithm: 'fixed_window', limit: 10, windowMs: 0, calendar: { unit: 'day', timeZone: 'UTC' }, regions }]);
    expect(global.ruleArgs[0]).toEqual([REGION_FIXED_WINDOW_CODE, '10', '0', '3']);
    expect(global.ruleArgs[0]).toHaveLength(RULE_ARGV.length + REGION_ARGV.length);
  });

  it('gives each algorithm as many KEYS as the encoder declares', () => {
    const keys = functionBody(code(read('includes/rules.lua')), 'keysOf');
    const special = new Map([...keys.matchAll(/if code == '(\w+)' then return (\d+) end/g)].map((m) => [m[1]!, Number(m[2])]));
    const otherKeys = Number(/return (\d+)\s*$/.exec(keys)?.[1]);
    for (const algorithm of Object.keys(ALGORITHM_CODES) as AlgorithmName[]) {
      expect(keysOf({ algorithm }), algorithm).toBe(special.get(ALGORITHM_CODES[algorithm]) ?? otherKeys);
    }
    expect(keysOf({ algorithm: 'fixed_window', regions: { index: 0, count: 2 } })).toBe(special.get(REGION_FIXED_WINDOW_CODE));
  });

  it('replies with the fields the table names', () => {
    const decide = code(read('includes/decide.lua'));
    // A rule's numbers are its one string.format of several integers (granted is one of its own).
    const perRule = [...decide.matchAll(/string\.format\('(%d(?: %d)+)'/g)].map((m) => m[1]!.split(' ').length);
    expect(perRule.length).toBeGreaterThan(0);
    for (const fields of perRule) expect(fields).toBe(REPLY.perRule.length);
    expect(code(read('limit.lua'))).toContain(`string.format('${REPLY.expired}%d', redisNow)`);
  });

  it('counts usage into the fields the tally format names', () => {
    const tally = code(read('includes/tally.lua'));
    for (const field of Object.values(TALLY.fields)) expect(tally, field).toContain(`'${field}'`);
    for (const result of Object.values(TALLY.results)) expect(ALL, result).toContain(`'${result.slice(0, -1)}'`);
    expect(tally).toContain(`'${TALLY.otherRoute}'`);
    // Literals that start a field: each one is in the table.
    const starts = [...tally.matchAll(/'([a-z]{1,2}[|#])'/g)].map((m) => m[1]);
    expect(new Set(starts)).toEqual(new Set(Object.values(TALLY.fields)));
    // A tally string: the head, then a line per rule; a routed head is three parts split by the route separator.
    expect(tally).toContain(String.raw`'^([^\n]*)\n?(.*)$'`);
    expect(tally).toContain(String.raw`'^([^\t]*)\t(%d+)\t(.+)$'`);
    expect([TALLY.line, TALLY.route]).toEqual(['\n', '\t']);
  });

  it('writes only fields that start as the tally format says, with its results', () => {
    // Every literal that starts a usage field (a letter or two, then `|` or `#`), in any of the script's files: a field
    // start of the table, or a route field's start with the name of the routes past the cap.
    const starts = [...Object.values(TALLY.fields), `${TALLY.fields.perRoute}${TALLY.otherRoute}`];
    const literals = [...ALL.matchAll(/'([a-z]{1,2}[|#][^']*)'/g)].map((m) => m[1]);
    expect(literals.length).toBeGreaterThan(0);
    for (const literal of literals) expect(starts, literal).toContain(literal);
    // The results a decision is counted with (addUsage's second argument): the table's, of the script's own.
    const results = [...code(read('includes/tally.lua')).matchAll(/addUsage\(tally, '([a-z_]+)'/g)].map((m) => `${m[1]}${TALLY.part}`);
    expect(new Set(results)).toEqual(new Set(Object.values(TALLY.results)));
  });
});
