#!/usr/bin/env node
// How often does the sliding window counter decide differently from the exact sliding log?
// Two measures on the same request trace:
// - same history (the usual measure): the exact sliding log decides and keeps the history of admitted
//   requests; for each request we also ask what the counter's estimate (prev × (W − elapsed)/W + curr, over
//   that same history) would have decided. A request is wrong when the two differ.
// - independent: each engine runs on its own and keeps its own state; compares how many each admits.
// Traces: uniform (Poisson arrivals at 1.5× the limit's rate) and bursty (quiet stretches, then bursts at
// 10× the rate). Run: `node bench/accuracy.mjs [--markdown]` after `npm run build`. Deterministic (seeded).
import { createRequire } from 'node:module';
import { fmt } from './lib.mjs';

const require = createRequire(import.meta.url);
const { MemoryEngine, ManualClock, prepareRules } = require('@tollgate/limiter');

const N = Number(process.env.ACCURACY_REQUESTS ?? 200_000);
const LIMIT = 100;
const WINDOW_MS = 60_000;
const ratePerMs = LIMIT / WINDOW_MS;

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Inter-arrival gaps in ms: Poisson arrivals at `load` × the limit's rate. */
function* uniformTrace(random, load) {
  for (let i = 0; i < N; i += 1) yield -Math.log(1 - random()) / (load * ratePerMs);
}

function* burstyTrace(random) {
  let i = 0;
  while (i < N) {
    yield WINDOW_MS * (0.2 + random() * 1.5); // a quiet stretch
    const burst = 20 + Math.floor(random() * 200);
    for (let b = 0; b < burst && i < N; b += 1, i += 1) yield -Math.log(1 - random()) / (10 * ratePerMs);
  }
}

async function compare(trace) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const exactEngine = new MemoryEngine({ clock });
  const approxEngine = new MemoryEngine({ clock });
  const rule = (algorithm) => prepareRules([{ name: 'minute', algorithm, limit: LIMIT, windowMs: WINDOW_MS }]);
  const admitted = new Map(); // fixed-window start → admitted count, of the exact engine's history
  let wrong = 0, falseAllow = 0, falseDeny = 0, allowedExact = 0, allowedApprox = 0, n = 0;
  for (const gap of trace) {
    clock.advance(Math.max(1, Math.round(gap)));
    const now = clock.now();
    const start = now - (now % WINDOW_MS);
    const estimate = ((admitted.get(start - WINDOW_MS) ?? 0) * (WINDOW_MS - (now - start))) / WINDOW_MS + (admitted.get(start) ?? 0);
    const counterSays = estimate + 1 <= LIMIT;
    const exact = (await exactEngine.consume({ tenantId: 't', cost: 1, rules: rule('sliding_log') })).allowed;
    if (exact) admitted.set(start, (admitted.get(start) ?? 0) + 1);
    const approx = (await approxEngine.consume({ tenantId: 't', cost: 1, rules: rule('sliding_window') })).allowed;
    n += 1;
    allowedExact += exact ? 1 : 0;
    allowedApprox += approx ? 1 : 0;
    if (exact !== counterSays) {
      wrong += 1;
      if (counterSays) falseAllow += 1;
      else falseDeny += 1;
    }
  }
  return { requests: n, wrong, wrongShare: wrong / n, falseAllow, falseDeny, allowedExact, allowedApprox };
}

const results = {
  'uniform 0.8×': await compare(uniformTrace(rng(41), 0.8)),
  'uniform 1.0×': await compare(uniformTrace(rng(42), 1.0)),
  'uniform 1.5×': await compare(uniformTrace(rng(43), 1.5)),
  bursty: await compare(burstyTrace(rng(7))),
};
if (!process.argv.includes('--markdown')) {
  console.log(JSON.stringify(results, null, 2));
} else {
  const row = (name, r) =>
    `| ${name} | ${fmt(r.requests)} | ${fmt(r.wrong)} | **${fmt(r.wrongShare * 100, 3)} %** | ${fmt(r.falseAllow)} / ${fmt(r.falseDeny)} | ${fmt(r.allowedExact)} / ${fmt(r.allowedApprox)} |`;
  console.log(`## Sliding window counter vs exact sliding log

Command: \`node bench/accuracy.mjs --markdown\` (in-memory engines, injected clock, seeded traces; limit ${LIMIT} per
${WINDOW_MS / 1000} s). Uniform: Poisson arrivals at 0.8×, 1.0× and 1.5× the limit's rate. Bursty: quiet stretches of 0.2–1.7 windows,
then bursts of 20–219 requests at 10× the rate. "Same history": the counter's estimate over the exact log's admitted
history, compared request by request with the log's decision. "Independent runs": each engine on its own state.

| trace | requests | wrong (same history) | share wrong | wrongly allowed / wrongly denied | admitted, independent runs: log / counter |
|---|---:|---:|---:|---:|---:|
${Object.entries(results).map(([name, r]) => row(name, r)).join('\n')}
`);
}
