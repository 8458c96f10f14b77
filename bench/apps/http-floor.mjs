// The HTTP floor: a plain Fastify 5 route (no Nest, no Redis, no validation but "is there a tenant") that answers
// `POST /v1/check` with a constant: the body and rate-limit headers Tollgate answered for the same request
// (FLOOR_ANSWER, FLOOR_HEADERS as JSON, from bench/enforcement.mjs). What any server on this stack pays to receive
// the request and send that answer; everything a decision does comes on top. With FLOOR_REDIS_URL it also asks Redis
// once per request before answering (`EVALSHA` of a script that returns 1, through ioredis, deciding nothing; the
// commands of one event-loop turn written together, `enableAutoPipelining`, unless FLOOR_REDIS_PIPELINE=false): what
// one Redis round trip a request adds on this stack. Started by bench/enforcement.mjs.
import Fastify from 'fastify';
import { Redis } from 'ioredis';

const answer = process.env.FLOOR_ANSWER ?? '{}';
const headers = JSON.parse(process.env.FLOOR_HEADERS ?? '{}');
const redis = process.env.FLOOR_REDIS_URL ? new Redis(process.env.FLOOR_REDIS_URL, { enableAutoPipelining: process.env.FLOOR_REDIS_PIPELINE !== 'false' }) : null;
redis?.defineCommand('one', { numberOfKeys: 0, lua: 'return 1' });
const app = Fastify();
app.post('/v1/check', async (req, reply) => {
  if (typeof req.body?.tenant !== 'string') return reply.code(400).send({ error: 'tenant is required' });
  if (redis && (await redis.one()) !== 1) throw new Error('Redis answered something else');
  return reply.headers(headers).type('application/json; charset=utf-8').send(answer);
});
await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close().finally(() => { redis?.disconnect(); process.exit(0); }));
