import fc from 'fast-check';

/**
 * Generators of hostile input for the fuzz suite: strings that break storage or display, names of Object.prototype's
 * members, numbers at and past every bound, JSON of every shape, malformed bodies, query strings and headers.
 */

/** Strings that have broken something somewhere: NUL, control characters, LIKE wildcards, prototype keys, zones. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  'bell\u0007\u001b[31mred',
  'next\u0085line',
  '\ud800',
  'half \udfff',
  '\u202eevil',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '%',
  '_',
  '\\',
  "'; drop table tenants; --",
  '../../etc/passwd',
  '+05:30',
  'utc',
  'Etc/GMT+5',
  'BST',
  'GET /v1/items/*',
  '/v1/items/*',
  '00000000-0000-4000-8000-000000000000',
  '9999999999',
  '-1',
  '1e999',
  'NaN',
  'true',
  'null',
  'x'.repeat(300),
  'x'.repeat(70_000),
  'Ünïcødé 名前 🚀 👩‍💻',
  'tg_test_not_a_real_key',
  '2026-02-30T00:00:00Z',
  '9999-12-31T23:59:59+14:00',
  '9999-12-31T23:59:59-14:00',
  '2099-01-01T00:00:00Z',
];

/** Numbers at and past every bound a schema has (and some JSON cannot even say, sent as raw text elsewhere). */
export const NASTY_NUMBERS = [0, -0, -1, 1, 1.5, 2 ** 31 - 1, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 1e21, 1e308, -1e308, Number.MIN_VALUE, 1_000_000_000, 1_000_000_001];

export const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.uuid() },
);

export const hostileNumber = fc.oneof(fc.constantFrom(...NASTY_NUMBERS), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));

/** A JSON value of any shape, strings and numbers hostile, a few levels deep. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(hostileString, fc.constantFrom('name', 'slug', 'limits', 'planId', 'tenantId', 'kind')), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** What the fuzz suite reads of a body field's JSON schema (from the OpenAPI document). */
export interface FieldSchema {
  type?: string;
  format?: string;
  enum?: unknown[];
  items?: FieldSchema;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  maxItems?: number;
}

/**
 * The values at and just past a field's edges, by its schema: what the edge sweep sets the field to, one by one.
 * Mostly values to be refused; of the valid ones only those at an edge (the maximum, a prototype name), since each
 * valid one commits a change.
 */
export function edgeValues(schema: FieldSchema | undefined): unknown[] {
  if (schema?.format === 'date-time') return ['9999-12-31T23:59:59-14:00', '0000-01-01T00:00:00Z', '2099-01-01T00:00:00.123456789Z', '2099-02-30T00:00:00Z'];
  if (schema?.type === 'integer' || schema?.type === 'number') {
    const edges = [schema.minimum === undefined ? [] : [schema.minimum - 1], schema.maximum === undefined ? [] : [schema.maximum, schema.maximum + 1]].flat();
    return [...new Set([0, -1, 1.5, 2 ** 31, 2 ** 53 + 2, 1e308, ...edges])];
  }
  if (schema?.enum) return [String(schema.enum[0]).toUpperCase(), `${String(schema.enum[0])} `, null];
  if (schema?.type === 'array') return [[null], ...(schema.maxItems === undefined ? [] : [Array.from({ length: schema.maxItems + 1 }, () => 'x')])];
  return ['', '\u0000', '\ud800', 'constructor', ...(schema?.maxLength === undefined ? [] : ['x'.repeat(schema.maxLength + 1)]), 1, {}];
}

/** Times at and past the edges: the year 9999 in every offset, the year 0, fractions past milliseconds, 24:00, 30 February. */
const hostileDate = fc.oneof(
  fc.constantFrom(
    '9999-12-31T23:59:59-14:00',
    '9999-12-31T23:59:59+14:00',
    '0000-01-01T00:00:00Z',
    '1970-01-01T00:00:00Z',
    '2099-01-01T00:00:00.123456789Z',
    '2099-01-01T24:00:00Z',
    '2099-02-30T00:00:00Z',
    '2099-01-01',
    '2099-01-01T00:00:00',
    '+010000-01-01T00:00:00Z',
  ),
  fc
    .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), fc.integer({ min: -14, max: 14 }))
    .map(([y, m, d, offset]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}T12:00:00${offset < 0 ? '-' : '+'}${String(Math.abs(offset)).padStart(2, '0')}:00`),
);

/** A value for a field of this schema: mostly of its type, at and past its edges; sometimes any JSON at all. */
export function valueFor(schema: FieldSchema | undefined): fc.Arbitrary<unknown> {
  const typed =
    schema?.format === 'date-time'
      ? hostileDate
      : schema?.type === 'integer' || schema?.type === 'number'
        ? hostileNumber
        : schema?.enum
          ? fc.oneof(fc.constantFrom(...schema.enum), fc.constantFrom(...schema.enum.map((v) => String(v).toUpperCase())), hostileString)
          : schema?.type === 'array'
            ? fc.array(valueFor(schema.items), { maxLength: 4 })
            : hostileString;
  return fc.oneof({ weight: 4, arbitrary: typed }, { weight: 1, arbitrary: hostileJson });
}

/**
 * Changes to a valid example body, so that generated bodies get past the first check of a schema: a field of the
 * schema set to a value of its type at its edges (or anything), a field removed, a prototype key added, or a field
 * replaced by deep nesting.
 */
type Mutation = (body: Record<string, unknown>) => unknown;
function mutation(fields: Readonly<Record<string, FieldSchema>>): fc.Arbitrary<Mutation> {
  const names = Object.keys(fields);
  return fc.oneof(
    {
      weight: names.length > 0 ? 4 : 0,
      arbitrary: names.length > 0 ? fc.constantFrom(...names).chain((name) => valueFor(fields[name]).map((value): Mutation => (body) => ({ ...body, [name]: value }))) : fc.constant((b: Record<string, unknown>) => b),
    },
    { weight: 1, arbitrary: fc.tuple(fc.nat(), hostileJson).map(([i, value]): Mutation => (body) => withField(body, i, value)) },
    { weight: 1, arbitrary: fc.nat().map((i): Mutation => (body) => withoutField(body, i)) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom('constructor', 'toString', 'hasOwnProperty', 'valueOf', 'extra', 'prototype'), hostileJson).map(([key, value]): Mutation => (body) => ({ ...body, [key]: value })),
    },
    { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.nat({ max: 12 })).map(([i, depth]): Mutation => (body) => withField(body, i, nest(depth, 'x'))) },
  );
}

/** `example` with one to three mutations; `fields` are the schema's fields by name. */
export function mutatedBody(example: Record<string, unknown>, fields: Readonly<Record<string, FieldSchema>> = {}): fc.Arbitrary<unknown> {
  return fc.array(mutation(fields), { minLength: 1, maxLength: 3 }).map((ms) => ms.reduce<unknown>((body, m) => (isObject(body) ? m(body) : body), structuredClone(example)));
}

/** Bodies no JSON.stringify makes: broken JSON, numbers JSON cannot hold, prototype keys, deep nesting, a BOM. */
export const rawBody = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '{"a":}',
    'null',
    '[]',
    '"just a string"',
    '1e999',
    '{"limit":1e999}',
    '{"windowS":-1e999}',
    '{"__proto__":{"admin":true}}',
    '{"a":{"constructor":{"prototype":{"admin":true}}}}',
    '\ufeff{"name":"bom"}',
    '{"name":"a","name":"b"}',
    '{"name":"\\ud800"}',
    '{"name":"\\u0000"}',
  ),
  fc.nat({ max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.nat({ max: 5_000 }).map((depth) => `${'{"constructor":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.nat({ max: 500 }).map((digits) => `{"limit":1${'0'.repeat(digits)}}`),
);

/** A query string: the route's own parameters and others, hostile values, repeated keys, broken escapes. */
export function queryString(names: readonly string[]): fc.Arbitrary<string> {
  const name = fc.oneof(fc.constantFrom(...names, 'q', 'cursor', 'limit', 'from', 'to', 'before', '__proto__', 'constructor', 'deny_status'), hostileString);
  const value = fc.oneof(hostileString.map(encodeLoose), fc.constantFrom('%', '%zz', '%ff', '%00', '%c0%80', '%ed%a0%80', '+', ''));
  return fc.array(fc.tuple(name.map(encodeLoose), value), { maxLength: 4 }).map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));
}

/** A path segment: a hostile string, percent-encoded (a lone surrogate has no UTF-8, so it goes as a broken escape). */
export const pathSegment = fc.oneof(hostileString.map(encodeLoose), fc.constantFrom('%ff', '%00', '%2e%2e', '..', '%2F', 'a%2Fb'));

/** Headers a caller might send, with values fetch accepts (no control characters; bytes up to 0xFF). */
const headerValue = fc.oneof(
  fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map((c) => String.fromCharCode(c)), maxLength: 60 }),
  fc.constantFrom('', ' ', '__proto__', 'constructor', '0', '-1', '9'.repeat(40)),
);
const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=utf-16',
    'application/json; charset=',
    'APPLICATION/JSON',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    'text/plain',
    'application/xml',
    '*/*',
    'application/json, text/plain',
  ),
  headerValue,
);
const HEADER_NAMES = ['accept', 'x-forwarded-for', 'x-api-key', 'x-tollgate-key', 'x-original-uri', 'x-original-method', 'accept-language', 'x-request-id', 'constructor', '__proto__'];

/** Mostly the headers a JSON client sends; now and then another content type, and a few other headers with odd values. */
export const hostileHeaders: fc.Arbitrary<Record<string, string>> = fc
  .tuple(
    fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: contentType }),
    fc.array(fc.tuple(fc.constantFrom(...HEADER_NAMES), headerValue), { maxLength: 3 }),
  )
  .map(([type, others]) => ({ ...Object.fromEntries(others), ...(type === undefined ? {} : { 'content-type': type }) }));

function withField(body: Record<string, unknown>, i: number, value: unknown): Record<string, unknown> {
  const keys = Object.keys(body);
  return keys.length === 0 ? { value } : { ...body, [keys[i % keys.length]!]: value };
}

function withoutField(body: Record<string, unknown>, i: number): Record<string, unknown> {
  const keys = Object.keys(body);
  if (keys.length === 0) return body;
  const { [keys[i % keys.length]!]: _gone, ...rest } = body;
  return rest;
}

function nest(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { constructor: value };
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** encodeURIComponent, except that a lone surrogate (which it refuses) goes as an escape that is not UTF-8. */
function encodeLoose(text: string): string {
  let out = '';
  for (const char of text) out += /^[\ud800-\udfff]$/.test(char) ? '%ed%a0%80' : encodeURIComponent(char);
  return out;
}
