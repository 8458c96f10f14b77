#!/usr/bin/env node
// Limiter benchmarks (issue 3). Run: `node bench/limiter.mjs` after `npm run build`, with Redis on
// BENCH_REDIS_URL (default redis://127.0.0.1:6379/12 — that database is flushed). Prints JSON; with
// `--markdown` prints the BENCHMARKS.md section.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { fmt, machine, throughput } from './lib.mjs';

const require = createRequire(import.meta.url);
const { RedisEngine, MemoryEngine, ManualClock, ruleKey, ALGORITHMS } = require('@tollgate/limiter');
const { limitScript, ruleArgs } = require('@tollgate/limiter/dist/redis/redis-engine.js');
const { resolveRule } = require('@tollgate/limiter/dist/rules.js');

const url = new URL(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/12');
const db = Number(url.pathname.slice(1) || 0);
const redis = new Redis(url.toString());
const markdown = process.argv.includes('--markdown');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const BIG = 1_000_000_000;

const minute = { name: 'minute', algorithm: 'fixed_window', limit: BIG, windowMs: 60_000 };
const daily = { name: 'daily', algorithm: 'fixed_window', limit: BIG, windowMs: 86_400_000 };
const perSecond = { name: 'second', algorithm: 'token_bucket', limit: 1_000_000, windowMs: 1_000, burst: 1_000_000 };

function redisBenchmark(args) {
  const out = execFileSync('redis-benchmark', ['-h', url.hostname, '-p', url.port || '6379', '--dbnum', String(db), '-P', '16', '-c', '50', '-n', String(400_000 * (seconds / 5)), '-r', '100000', '-q', ...args]).toString();
  const m = out.match(/([\d.]+) requests per second/);
  if (!m) throw new Error(`redis-benchmark: ${out}`);
  return Number(m[1]);
}

/** The script's ARGV for consuming 1 unit against `rules` on Redis TIME, as the engine sends it (see lua/limit.lua). */
function scriptArgs(rules) {
  return ['consume', '', '0', '1', ...rules.flatMap((rule, i) => ruleArgs(resolveRule(rule, i)))];
}

async function scriptOpsPerSecond() {
  await redis.script('LOAD', limitScript.source);
  const tag = 'tg:{bench}';
  const single = redisBenchmark(['EVALSHA', limitScript.sha, '1', `${tag}:fw:minute:__rand_int__`, ...scriptArgs([minute])]);
  const three = redisBenchmark([
    'EVALSHA', limitScript.sha, '3',
    `${tag}:tb1:second:__rand_int__`, `${tag}:fw:minute:__rand_int__`, `${tag}:fw:daily:__rand_int__`,
    ...scriptArgs([perSecond, minute, daily]),
  ]);
  const incr = redisBenchmark(['INCR', `${tag}:incr:__rand_int__`]);
  return { incr, singleFixedWindow: single, threeLimits: three };
}

async function nodeLoop() {
  const engine = new RedisEngine(redis);
  const rules = [perSecond, minute, daily];
  const tollgate = await throughput((i) => engine.consume({ tenantId: 'bench-node', subject: `s${i % 10_000}`, cost: 1, rules }), { ms: seconds * 1000 });
  const rlf = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'rlf', points: BIG, duration: 60 });
  const flexible = await throughput((i) => rlf.consume(`s${i % 10_000}`, 1), { ms: seconds * 1000 });
  const engineOne = await throughput((i) => engine.consume({ tenantId: 'bench-node', subject: `s${i % 10_000}`, cost: 1, rules: [minute] }), { ms: seconds * 1000 });
  return { tollgateThreeLimits: tollgate, tollgateOneLimit: engineOne, rateLimiterFlexible: flexible };
}

async function memoryDecisions() {
  const clock = new ManualClock(Date.now());
  const engine = new MemoryEngine({ clock });
  const rules = [perSecond, minute, daily];
  const n = 300_000;
  for (let i = 0; i < 20_000; i += 1) await engine.consume({ tenantId: 't', subject: `s${i % 1000}`, cost: 1, rules });
  const start = performance.now();
  for (let i = 0; i < n; i += 1) {
    if (i % 100 === 0) clock.advance(1);
    await engine.consume({ tenantId: 't', subject: `s${i % 1000}`, cost: 1, rules });
  }
  return { threeLimitsPerSecond: n / ((performance.now() - start) / 1000) };
}

async function memoryUsage() {
  const engine = new RedisEngine(redis);
  const result = {};
  for (const algorithm of ALGORITHMS) {
    const rule = { name: 'minute', algorithm, limit: 100, windowMs: 60_000 };
    const samples = [];
    for (let i = 0; i < 200; i += 1) {
      const request = { tenantId: '3f2a9c1e-5b7d-4e8f-9a6b-0c1d2e3f4a5b', subject: `user-${i}`, cost: 1, rules: [rule] };
      await engine.consume(request);
      let key = ruleKey(request.tenantId, rule, request.subject);
      if (algorithm === 'fixed_window') key = (await redis.keys(`${key}:*`))[0];
      samples.push(await redis.memory('USAGE', key, 'SAMPLES', '0'));
    }
    result[algorithm] = samples.reduce((a, b) => a + b, 0) / samples.length;
  }
  return result;
}

async function commandsPerDecision() {
  const engine = new RedisEngine(redis);
  const rules = [perSecond, minute, daily];
  await engine.consume({ tenantId: 'bench-cmd', cost: 1, rules }); // script cached
  await redis.config('RESETSTAT');
  const n = 10_000;
  for (let i = 0; i < n; i += 1) await engine.consume({ tenantId: 'bench-cmd', subject: `s${i % 100}`, cost: 1, rules });
  const stats = await redis.info('commandstats');
  const calls = Object.fromEntries([...stats.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].map((m) => [m[1], Number(m[2])]));
  delete calls.config;
  const scriptCalls = (calls.evalsha ?? 0) + (calls.eval ?? 0);
  const inside = Object.entries(calls).filter(([c]) => c !== 'evalsha' && c !== 'eval' && c !== 'info');
  return {
    decisions: n,
    scriptCallsPerDecision: scriptCalls / n,
    roundTripsPerDecision: scriptCalls / n,
    commandsInsideScriptPerDecision: Object.fromEntries(inside.map(([c, v]) => [c, v / n])),
  };
}

await redis.flushdb();
const results = {
  machine: machine(),
  redisBenchmark: await scriptOpsPerSecond(),
  nodeLoop64: await nodeLoop(),
  memory: await memoryDecisions(),
  memoryUsageBytesPerKey: await memoryUsage(),
  commands: await commandsPerDecision(),
};
await redis.flushdb();
redis.disconnect();

if (!markdown) {
  console.log(JSON.stringify(results, null, 2));
} else {
  const r = results;
  const rb = r.redisBenchmark;
  const nl = r.nodeLoop64;
  console.log(`## Limiter (issue 3)

Command: \`npm run build && node bench/limiter.mjs --markdown\` (BENCH_SECONDS=${seconds}). Machine: ${r.machine.cpu},
${r.machine.memoryGiB} GiB, Node ${r.machine.node}, Redis ${r.machine.redis} (Debian, local, single instance), ${r.machine.date}.
Everything below was measured in the same run; ratios compare figures of this run only.

### One script per decision vs a bare command (redis-benchmark -P 16 -c 50, random keys)
| command | ops/s | ratio |
|---|---:|---:|
| \`INCR\` (baseline) | ${fmt(rb.incr)} | 1.00× |
| \`limit.lua\`, 1 fixed-window limit | ${fmt(rb.singleFixedWindow)} | ${fmt(rb.singleFixedWindow / rb.incr, 2)}× INCR |
| \`limit.lua\`, 3 limits (token bucket/s + fixed minute + fixed day) | ${fmt(rb.threeLimits)} | **${fmt(rb.threeLimits / rb.singleFixedWindow, 2)}× the single fixed window** (goal ≥ 0.5×) |

### Node decision loop, 64 in flight, same Redis
| client | decisions/s | ratio |
|---|---:|---:|
| rate-limiter-flexible \`RateLimiterRedis.consume()\` (1 limit; baseline) | ${fmt(nl.rateLimiterFlexible)} | 1.00× |
| Tollgate \`RedisEngine.consume()\`, 1 limit | ${fmt(nl.tollgateOneLimit)} | ${fmt(nl.tollgateOneLimit / nl.rateLimiterFlexible, 2)}× |
| Tollgate \`RedisEngine.consume()\`, 3 limits | ${fmt(nl.tollgateThreeLimits)} | **${fmt(nl.tollgateThreeLimits / nl.rateLimiterFlexible, 2)}×** (goal ≥ 1.0×) |

### In memory
\`MemoryEngine.consume()\`, 3 limits, one at a time: **${fmt(r.memory.threeLimitsPerSecond)} decisions/s**.

### Bytes per key (\`MEMORY USAGE\`, mean of 200 keys, limit 100/min, one consume each)
| algorithm | bytes/key |
|---|---:|
${Object.entries(r.memoryUsageBytesPerKey).map(([a, b]) => `| ${a} | ${fmt(b)} |`).join('\n')}

### Redis commands per decision (\`INFO commandstats\` over ${fmt(r.commands.decisions)} decisions of 3 limits)
Script calls (round trips) per decision: **${fmt(r.commands.scriptCallsPerDecision, 2)}**. Commands run inside the script per decision:
${Object.entries(r.commands.commandsInsideScriptPerDecision).map(([c, v]) => `\`${c}\` ${fmt(v, 2)}`).join(', ')}.
`);
}
