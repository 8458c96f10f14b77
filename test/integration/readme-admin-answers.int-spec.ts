import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../support/api';
import { testDatabaseUrl, testRedisUrl } from '../support/env';
import { createServiceKey, createUser, waitFor } from '../support/fixtures';
import { recreateDatabase } from '../support/stack';

// The README shows what the admin API answers: each `curl` of the admin API followed by a JSON answer is sent to an
// API here, and its answer must have the README's fields, no more and no fewer, with the README's values except
// placeholders (`…`), times and numbers. A database and Redis database of its own, so the README's `acme` and the
// list's first key are the README's.
const databaseUrl = testDatabaseUrl('readme');
const redisUrl = testRedisUrl(4);

interface Example {
  method: string;
  path: string;
  body: unknown;
  answer: unknown;
}

/** Each ```bash block with a `curl` of the admin API that is directly followed by a ```json block. */
function adminExamples(markdown: string): Example[] {
  const blocks = [...markdown.matchAll(/^[ \t]*```(\w+)\n([\s\S]*?)^[ \t]*```[ \t]*$/gm)].map((m) => ({ lang: m[1]!, text: m[2]!, start: m.index, end: m.index + m[0].length }));
  const examples: Example[] = [];
  blocks.forEach((block, i) => {
    const next = blocks[i + 1];
    if (block.lang !== 'bash' || next?.lang !== 'json' || markdown.slice(block.end, next.start).trim() !== '') return;
    const command = block.text.replace(/\\\n\s*/g, ' ');
    const url = /http:\/\/localhost:3000(\/v1\/admin\/[^\s'"]*)/.exec(command);
    if (!url) return;
    const data = /-d '([^']*)'/.exec(command);
    const method = /-X (\w+)/.exec(command)?.[1] ?? (data ? 'POST' : 'GET');
    examples.push({ method, path: url[1]!, body: data ? JSON.parse(data[1]!) : undefined, answer: JSON.parse(next.text) });
  });
  return examples;
}

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Where `actual` differs from the README's `expected`: fields, types, and values other than placeholders. */
function differences(expected: unknown, actual: unknown, path = '$'): string[] {
  if (typeof expected === 'string' && expected.includes('…')) return typeof actual === 'string' ? [] : [`${path}: a string, got ${JSON.stringify(actual)}`];
  // A time may be null in one answer and set in another (a key not used yet).
  if (typeof expected === 'string' && TIME.test(expected)) return actual === null || (typeof actual === 'string' && TIME.test(actual)) ? [] : [`${path}: a time, got ${JSON.stringify(actual)}`];
  if (typeof expected === 'number') return typeof actual === 'number' ? [] : [`${path}: a number, got ${JSON.stringify(actual)}`];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return [`${path}: ${expected.length} item(s), got ${JSON.stringify(actual)}`];
    return expected.flatMap((e, i) => differences(e, actual[i], `${path}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: an object, got ${JSON.stringify(actual)}`];
    const fields = new Map(Object.entries(actual));
    const missing = Object.keys(expected).filter((k) => !fields.has(k)).map((k) => `${path}.${k}: missing from the answer`);
    const extra = [...fields.keys()].filter((k) => !Object.hasOwn(expected, k)).map((k) => `${path}.${k}: in the answer, not in the README`);
    return [...missing, ...extra, ...Object.entries(expected).flatMap(([k, v]) => (fields.has(k) ? differences(v, fields.get(k), `${path}.${k}`) : []))];
  }
  return Object.is(expected, actual) ? [] : [`${path}: ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

describe('the README\'s admin API answers', () => {
  let prisma: PrismaClient;
  let api: TestApi;
  let token: string;
  const examples = adminExamples(readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8'));

  beforeAll(async () => {
    await recreateDatabase(databaseUrl);
    const redis = new Redis(redisUrl);
    await redis.flushdb();
    redis.disconnect();
    prisma = createPrismaClient(databaseUrl, { poolSize: 2 });
    const plan = await prisma.plan.create({ data: { slug: 'starter', name: 'Starter', limits: { create: [{ name: 'minute', windowS: 60, limit: 10 }] } } });
    await prisma.tenant.create({ data: { slug: 'acme', name: 'Acme Corp', planId: plan.id } });
    // An older service key: the README's list page has a next page.
    await createServiceKey(prisma);
    api = await startApi({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl });
    token = (await api.request('POST', '/v1/auth/login', { body: await createUser(prisma) })).body.token;
  });
  afterAll(async () => {
    await api?.close();
    await prisma?.$disconnect();
  });

  it('shows a created key, one key, a list page and an error, each as the API answers it', async () => {
    expect(examples.map((e) => `${e.method} ${e.path}`)).toEqual([
      'POST /v1/admin/keys',
      'GET /v1/admin/keys/$KEY_ID',
      'GET /v1/admin/keys?kind=service&pageSize=1',
      'POST /v1/admin/keys',
    ]);
    let keyId = '';
    for (const example of examples) {
      const r = await api.request(example.method, example.path.replace('$KEY_ID', keyId), { token, body: example.body });
      expect(differences(example.answer, r.body), `${example.method} ${example.path}`).toEqual([]);
      if (r.status === 201) {
        keyId = r.body.apiKey.id;
        // The secret is `key`, and it is the one that works.
        expect(r.body.key).toMatch(/^tg_live_s_/);
        await waitFor(async () => (await api.request('GET', '/health')).body.ruleVersion >= r.body.ruleVersion);
        expect((await api.request('POST', '/v1/check', { token: r.body.key, body: { tenant: 'acme', endpoint: 'GET /x' } })).status).toBe(200);
      }
    }
    expect(keyId).not.toBe('');
  });
});
