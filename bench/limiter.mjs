#!/usr/bin/env node
// Limiter benchmarks. Run: `node bench/limiter.mjs` after `npm run build`, with Redis on
// BENCH_REDIS_URL (default: a redis-server of the run's own on a free port; a database named here is flushed). Prints JSON; with
// `--markdown` prints the BENCHMARKS.md section; `--earlier-counters` runs only the fixed windows' earlier-counter comparison.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterUnion } from 'rate-limiter-flexible';
import { startRedisServer } from '../scripts/lib/redis-server.mjs';
import { fmt, machine, throughput } from './lib.mjs';

const require = createRequire(import.meta.url);
const { RedisEngine, MemoryEngine, ManualClock, prepareRules, ruleKey, ALGORITHMS } = require('@tollgate/limiter');
const { limitScript } = require('@tollgate/limiter/dist/redis/redis-engine.js');

const ownRedis = process.env.BENCH_REDIS_URL ? undefined : await startRedisServer('tollgate-bench');
const url = new URL(process.env.BENCH_REDIS_URL ?? ownRedis.url);
const db = Number(url.pathname.slice(1) || 0);
const redis = new Redis(url.toString());
const markdown = process.argv.includes('--markdown');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const BIG = 1_000_000_000;

const minute = { name: 'minute', algorithm: 'fixed_window', limit: BIG, windowMs: 60_000 };
const daily = { name: 'daily', algorithm: 'fixed_window', limit: BIG, windowMs: 86_400_000 };
const perSecond = { name: 'second', algorithm: 'token_bucket', limit: 1_000_000, windowMs: 1_000, burst: 1_000_000 };

function redisBenchmark(args, { requests = 400_000 * (seconds / 5), keys = 100_000 } = {}) {
  const out = execFileSync('redis-benchmark', ['-h', url.hostname, '-p', url.port || '6379', '--dbnum', String(db), '-P', '16', '-c', '50', '-n', String(Math.round(requests)), '-r', String(keys), '-q', ...args]).toString();
  const m = out.match(/([\d.]+) requests per second/);
  if (!m) throw new Error(`redis-benchmark: ${out}`);
  return Number(m[1]);
}

/** The script's ARGV for consuming 1 unit against `rules` on Redis TIME, as the engine sends it (see lua/limit.lua). */
function scriptArgs(rules) {
  return ['', '0', '', '', '', 'consume', '1', '', ...prepareRules(rules).args];
}

/** Redis's own count of script calls (`EVALSHA`) and of the µs spent inside them (`INFO commandstats`). */
async function scriptTime() {
  const m = (await redis.info('commandstats')).match(/cmdstat_evalsha:calls=(\d+),usec=(\d+)/);
  return m ? { calls: Number(m[1]), usec: Number(m[2]) } : { calls: 0, usec: 0 };
}

/** The first and third quartiles (the middle half of the rounds lies between them). */
function quartiles(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return [s[Math.floor((s.length - 1) / 4)], s[Math.ceil((3 * (s.length - 1)) / 4)]];
}

/**
 * redis-benchmark of the script with 1 and 3 limits, interleaved `ROUNDS` times (medians; the ratio per round), in
 * the steady state of subjects that come back: `SCRIPT_KEYS` subjects, and before each round both scripts run over
 * every subject (4 calls a subject on average) so that every window key of the minute and the day exists (the
 * token bucket's key never outlives a call: 1 ms). A round that a minute boundary cuts (new minute windows: a
 * round where the 1-limit script creates its keys and the other does not) is made again. The order alternates
 * (1 then 3, 3 then 1, …) so that a change in the machine's load during a round does not always fall on the same
 * side of its ratio (the machine is shared). Rounds are short and many (15 of ~2 s and ~4 s): this machine's speed
 * swings within seconds, and the median of many short rounds is steadier than that of a few long ones. Redis's own
 * time inside the calls (`INFO commandstats`) is kept per round too: the same ratio without the client and the network.
 */
const ROUNDS = Number(process.env.BENCH_SCRIPT_ROUNDS ?? 15);
const SCRIPT_KEYS = 20_000;
async function scriptOpsPerSecond() {
  await redis.script('LOAD', limitScript.source);
  const tag = 'tg:{bench}';
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const minuteNow = async () => Math.floor(Number((await redis.time())[0]) / 60);
  // A fixed window declares two keys: its own and the counter earlier versions kept (lua/includes/fixed_window.lua).
  // redis-benchmark draws each __rand_int__ on its own, so the counter named here is never the one of the window the
  // script decides in, which it then leaves alone: these rounds measure the script without that counter.
  const single = ['EVALSHA', limitScript.sha, '2', `${tag}:fw:minute:__rand_int__`, `${tag}:fw:minute:__rand_int__:0`, ...scriptArgs([minute])];
  const three = [
    'EVALSHA', limitScript.sha, '5',
    `${tag}:tb1:second:__rand_int__`, `${tag}:fw:minute:__rand_int__`, `${tag}:fw:minute:__rand_int__:0`, `${tag}:fw:daily:__rand_int__`, `${tag}:fw:daily:__rand_int__:0`,
    ...scriptArgs([perSecond, minute, daily]),
  ];
  const run = (args, requests) => redisBenchmark(args, { keys: SCRIPT_KEYS, requests });
  const rounds = [];
  let cut = 0;
  for (let i = 0; rounds.length < ROUNDS; i += 1) {
    if (i >= 3 * ROUNDS) throw new Error('the script rounds keep crossing minute boundaries');
    const started = await minuteNow();
    run(single, 4 * SCRIPT_KEYS);
    run(three, 4 * SCRIPT_KEYS);
    const measured = {};
    const usec = {};
    for (const [name, args] of rounds.length % 2 === 0 ? [['single', single], ['three', three]] : [['three', three], ['single', single]]) {
      const before = await scriptTime();
      measured[name] = run(args, 100_000 * (seconds / 5)); // ~2 s and ~4 s: short rounds, seldom cut by a minute
      const after = await scriptTime();
      usec[name] = (after.usec - before.usec) / (after.calls - before.calls);
    }
    if ((await minuteNow()) !== started) {
      cut += 1;
      continue;
    }
    rounds.push({ ...measured, ratio: measured.three / measured.single, usecSingle: usec.single, usecThree: usec.three, usecRatio: usec.single / usec.three });
  }
  const incr = redisBenchmark(['INCR', `${tag}:incr:__rand_int__`]);
  return {
    incr,
    singleFixedWindow: median(rounds.map((r) => r.single)),
    threeLimits: median(rounds.map((r) => r.three)),
    ratios: rounds.map((r) => r.ratio),
    medianRatio: median(rounds.map((r) => r.ratio)),
    quartiles: quartiles(rounds.map((r) => r.ratio)),
    usecSingle: median(rounds.map((r) => r.usecSingle)),
    usecThree: median(rounds.map((r) => r.usecThree)),
    usecRatio: median(rounds.map((r) => r.usecRatio)),
    roundsCutByAMinute: cut,
  };
}

async function nodeLoop() {
  const loop = (op) => throughput(op, { ms: seconds * 1000 });
  // Rules prepared once, as the API prepares them once per rule set version.
  const one = prepareRules([minute]);
  const three = prepareRules([perSecond, minute, daily]);
  const tollgate = (engine, rules) => loop((i) => engine.consume({ tenantId: 'bench-node', subject: `s${i % 10_000}`, cost: 1, rules }));
  const batched = new RedisEngine(redis);
  const unbatched = new RedisEngine(redis, { batch: false });
  const rlf = (keyPrefix, points, duration) => new RateLimiterRedis({ storeClient: redis, keyPrefix, points, duration });
  const flexibleOne = rlf('rlf-m', BIG, 60);
  const union = new RateLimiterUnion(rlf('rlf-s', perSecond.limit, 1), rlf('rlf-m3', BIG, 60), rlf('rlf-d', BIG, 86_400));
  return {
    rateLimiterFlexible: await loop((i) => flexibleOne.consume(`s${i % 10_000}`, 1)),
    rateLimiterFlexibleUnionThree: await loop((i) => union.consume(`s${i % 10_000}`, 1)),
    tollgateOneLimit: await tollgate(batched, one),
    tollgateThreeLimits: await tollgate(batched, three),
    tollgateOneLimitUnbatched: await tollgate(unbatched, one),
    tollgateThreeLimitsUnbatched: await tollgate(unbatched, three),
  };
}

/**
 * The engine loop of 3 limits (a token bucket and two fixed windows, 64 in flight, 50 tenants of 200 subjects each,
 * rules prepared once) with the counter earlier versions kept (`earlierCounters`, the default) and without it:
 * `EARLIER_ROUNDS` interleaved rounds, alternating which runs first (the machine is shared); medians of decisions/s,
 * of Redis's own time a decision (`INFO commandstats`: the script calls' time over the decisions they made) and of the
 * decisions a call (batching: the more a call waits, the more decisions it holds).
 */
const EARLIER_ROUNDS = Number(process.env.BENCH_EARLIER_ROUNDS ?? 8);
async function earlierCounters() {
  const rules = prepareRules([perSecond, minute, daily]);
  const engines = { on: new RedisEngine(redis), off: new RedisEngine(redis, { earlierCounters: false }) };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rounds = [];
  for (let round = 0; round < EARLIER_ROUNDS; round += 1) {
    const measured = {};
    for (const mode of round % 2 === 0 ? ['on', 'off'] : ['off', 'on']) {
      const engine = engines[mode];
      let made = 0;
      const before = await scriptTime();
      const decisions = await throughput((i) => {
        made += 1;
        return engine.consume({ tenantId: `bench-ec-${i % 50}`, subject: `s${i % 10_000}`, cost: 1, rules });
      }, { ms: 2_000 });
      const after = await scriptTime();
      measured[mode] = { perSecond: decisions, usecPerDecision: (after.usec - before.usec) / made, perCall: made / (after.calls - before.calls) };
    }
    rounds.push(measured);
  }
  const of = (mode, field) => median(rounds.map((r) => r[mode][field]));
  return {
    rounds: rounds.length,
    on: { perSecond: of('on', 'perSecond'), usecPerDecision: of('on', 'usecPerDecision'), perCall: of('on', 'perCall') },
    off: { perSecond: of('off', 'perSecond'), usecPerDecision: of('off', 'usecPerDecision'), perCall: of('off', 'perCall') },
    ratios: rounds.map((r) => r.off.perSecond / r.on.perSecond),
  };
}

/** The markdown of `earlierCounters()`'s figures. */
function earlierCountersMarkdown(ec) {
  return `### A fixed window with and without the earlier versions' counter (\`FIXED_WINDOW_EARLIER_COUNTERS\`, ADR 0024)
\`RedisEngine.consume()\`, 3 limits (token bucket/s + fixed minute + fixed day), 64 in flight, 50 tenants × 200 subjects,
rules prepared once; medians of ${ec.rounds} interleaved rounds of 2 s (+1 s warm-up), alternating which runs first.
| earlier counters | decisions/s | Redis µs a decision | decisions a script call |
|---|---:|---:|---:|
| on (default: an \`MGET\` of two keys and a \`SET\` a fixed window; no earlier node runs) | ${fmt(ec.on.perSecond)} | ${fmt(ec.on.usecPerDecision, 1)} | ${fmt(ec.on.perCall, 1)} |
| off (one \`GET\` and one \`SET\`) | ${fmt(ec.off.perSecond)} | ${fmt(ec.off.usecPerDecision, 1)} | ${fmt(ec.off.perCall, 1)} |

Off ÷ on per round: ${ec.ratios.map((x) => fmt(x, 2)).join(', ')}.
`;
}

async function memoryDecisions() {
  const clock = new ManualClock(Date.now());
  const engine = new MemoryEngine({ clock });
  const rules = prepareRules([perSecond, minute, daily]);
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
      const request = { tenantId: '3f2a9c1e-5b7d-4e8f-9a6b-0c1d2e3f4a5b', subject: `user-${i}`, cost: 1, rules: prepareRules([rule]) };
      await engine.consume(request);
      const key = ruleKey(request.tenantId, rule, request.subject);
      samples.push(await redis.memory('USAGE', key, 'SAMPLES', '0'));
    }
    result[algorithm] = samples.reduce((a, b) => a + b, 0) / samples.length;
  }
  return result;
}

/** Redis commands per decision of 3 limits: `n` decisions one after another, or 64 at a time (batched). */
async function commandsPerDecision(concurrent) {
  const engine = new RedisEngine(redis);
  const rules = prepareRules([perSecond, minute, daily]);
  await engine.consume({ tenantId: 'bench-cmd', cost: 1, rules }); // script cached
  await redis.config('RESETSTAT');
  const n = 10_000;
  const decide = (i) => engine.consume({ tenantId: 'bench-cmd', subject: `s${i % 100}`, cost: 1, rules });
  if (concurrent) for (let i = 0; i < n; i += 64) await Promise.all(Array.from({ length: 64 }, (_, j) => decide(i + j)));
  else for (let i = 0; i < n; i += 1) await decide(i);
  const decisions = concurrent ? Math.ceil(n / 64) * 64 : n;
  const stats = await redis.info('commandstats');
  const calls = Object.fromEntries([...stats.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].map((m) => [m[1], Number(m[2])]));
  delete calls.config;
  const scriptCalls = (calls.evalsha ?? 0) + (calls.eval ?? 0);
  const inside = Object.entries(calls).filter(([c]) => c !== 'evalsha' && c !== 'eval' && c !== 'info');
  return {
    decisions,
    scriptCallsPerDecision: scriptCalls / decisions,
    commandsInsideScriptPerDecision: Object.fromEntries(inside.map(([c, v]) => [c, v / decisions])),
  };
}

if (process.argv.includes('--earlier-counters')) {
  // Only the comparison above (`node bench/limiter.mjs --earlier-counters`): its figures and their markdown.
  await redis.flushdb();
  const ec = await earlierCounters();
  await redis.flushdb();
  redis.disconnect();
  await ownRedis?.stop();
  console.log(JSON.stringify({ machine: machine(), earlierCounters: ec }, null, 2));
  console.log(earlierCountersMarkdown(ec));
  process.exit(0);
}

await redis.flushdb();
const results = {
  machine: machine(),
  redisBenchmark: await scriptOpsPerSecond(),
  nodeLoop64: await nodeLoop(),
  earlierCounters: await earlierCounters(),
  memory: await memoryDecisions(),
  memoryUsageBytesPerKey: await memoryUsage(),
  commands: await commandsPerDecision(false),
  commandsBatched: await commandsPerDecision(true),
};
await redis.flushdb();
redis.disconnect();
await ownRedis?.stop();

if (!markdown) {
  console.log(JSON.stringify(results, null, 2));
} else {
  const r = results;
  const rb = r.redisBenchmark;
  const nl = r.nodeLoop64;
  console.log(`## Limiter

Command: \`npm run build && node bench/limiter.mjs --markdown\` (BENCH_SECONDS=${seconds}). Machine: ${r.machine.cpu},
${r.machine.memoryGiB} GiB, Node ${r.machine.node}, Redis ${r.machine.redis} (Debian, local, single instance), ${r.machine.date}.
Everything below was measured in the same run; ratios compare figures of this run only.

### One script per decision vs a bare command (redis-benchmark -P 16 -c 50, random keys; script figures: medians of ${ROUNDS} interleaved rounds, alternating which runs first, over ${fmt(SCRIPT_KEYS)} subjects whose window keys exist; ${r.redisBenchmark.roundsCutByAMinute} round(s) cut by a minute boundary made again)
| command | ops/s | ratio |
|---|---:|---:|
| \`INCR\` (baseline) | ${fmt(rb.incr)} | 1.00× |
| \`limit.lua\`, 1 fixed-window limit | ${fmt(rb.singleFixedWindow)} | ${fmt(rb.singleFixedWindow / rb.incr, 2)}× INCR |
| \`limit.lua\`, 3 limits (token bucket/s + fixed minute + fixed day) | ${fmt(rb.threeLimits)} | **${fmt(rb.medianRatio, 2)}× the single fixed window** (goal ≥ 0.5×; rounds: ${rb.ratios.map((x) => fmt(x, 2)).join(', ')}) |

Ratio per round, sorted: ${[...rb.ratios].sort((a, b) => a - b).map((x) => fmt(x, 2)).join(', ')} (middle half ${fmt(rb.quartiles[0], 2)}–${fmt(rb.quartiles[1], 2)}).
Redis's own time inside a call (\`INFO commandstats\`, medians of the rounds): 1 limit ${fmt(rb.usecSingle, 2)} µs, 3 limits ${fmt(rb.usecThree, 2)} µs: the 3-limit call
at **${fmt(rb.usecRatio, 2)}×** the single one's speed by Redis's time inside the calls alone (median of the rounds' ratios; the
ratio above also holds reading and answering the calls, which the 3-limit call's longer ARGV and reply cost more of).

### Node decision loop, 64 in flight, same Redis, same ioredis client
Tollgate's engine batches decisions of one tenant asked for in the same turn of the event loop into one script call
(each still atomic and all-or-nothing, made one after another); "unbatched" is one script call per decision.
rate-limiter-flexible has no multi-limit decision: \`RateLimiterUnion\` consumes each limiter separately (3 round trips, and
a denied request is still charged on the other limits).

| client | decisions/s | ratio |
|---|---:|---:|
| rate-limiter-flexible \`RateLimiterRedis.consume()\`, 1 limit (baseline) | ${fmt(nl.rateLimiterFlexible)} | 1.00× |
| rate-limiter-flexible \`RateLimiterUnion.consume()\`, 3 limits | ${fmt(nl.rateLimiterFlexibleUnionThree)} | ${fmt(nl.rateLimiterFlexibleUnionThree / nl.rateLimiterFlexible, 2)}× |
| Tollgate \`RedisEngine.consume()\`, 1 limit | ${fmt(nl.tollgateOneLimit)} | **${fmt(nl.tollgateOneLimit / nl.rateLimiterFlexible, 2)}×** (goal ≥ 1.0×) |
| Tollgate \`RedisEngine.consume()\`, 3 limits | ${fmt(nl.tollgateThreeLimits)} | **${fmt(nl.tollgateThreeLimits / nl.rateLimiterFlexible, 2)}×**; ${fmt(nl.tollgateThreeLimits / nl.rateLimiterFlexibleUnionThree, 2)}× the union |
| Tollgate, unbatched, 1 limit | ${fmt(nl.tollgateOneLimitUnbatched)} | ${fmt(nl.tollgateOneLimitUnbatched / nl.rateLimiterFlexible, 2)}× |
| Tollgate, unbatched, 3 limits | ${fmt(nl.tollgateThreeLimitsUnbatched)} | ${fmt(nl.tollgateThreeLimitsUnbatched / nl.rateLimiterFlexible, 2)}× |

${earlierCountersMarkdown(r.earlierCounters)}
### In memory
\`MemoryEngine.consume()\`, 3 limits, one at a time: **${fmt(r.memory.threeLimitsPerSecond)} decisions/s**.

### Bytes per key (\`MEMORY USAGE\`, mean of 200 keys, limit 100/min, one consume each)
A fixed window's own key; the counter earlier versions kept (\`…:<window start ms>\`, ADR 0024) is one more key a window.
| algorithm | bytes/key |
|---|---:|
${Object.entries(r.memoryUsageBytesPerKey).map(([a, b]) => `| ${a} | ${fmt(b)} |`).join('\n')}

### Redis commands per decision (\`INFO commandstats\`, decisions of 3 limits)
One after another (${fmt(r.commands.decisions)} decisions): script calls (round trips) per decision **${fmt(r.commands.scriptCallsPerDecision, 2)}**; commands run inside
the script per decision: ${Object.entries(r.commands.commandsInsideScriptPerDecision).map(([c, v]) => `\`${c}\` ${fmt(v, 2)}`).join(', ')}.
64 at a time (${fmt(r.commandsBatched.decisions)} decisions, batched): script calls per decision **${fmt(r.commandsBatched.scriptCallsPerDecision, 3)}**; inside:
${Object.entries(r.commandsBatched.commandsInsideScriptPerDecision).map(([c, v]) => `\`${c}\` ${fmt(v, 3)}`).join(', ')}.
`);
}
