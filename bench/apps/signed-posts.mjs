// The direct baselines of bench/webhooks.mjs, in a process of their own as the worker is: POSTS_N signed POSTs
// (Standard Webhooks, the same signature code and body shape as the worker's) to POSTS_URL, POSTS_CONCURRENCY at a
// time, over kept-alive connections — no outbox, claim or log — with `fetch` (POSTS_CLIENT=fetch) or node:http and a
// keep-alive Agent, the client the worker uses (POSTS_CLIENT=http). Prints `{ ms, cpuMs }` (wall time and this
// process's user + system CPU over the sends) as one JSON line.
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { signatureHeader } = require('@tollgate/webhooks');

const url = process.env.POSTS_URL;
const secret = process.env.POSTS_SECRET;
const n = Number(process.env.POSTS_N);
const concurrency = Number(process.env.POSTS_CONCURRENCY);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

/** One POST with node:http; answers its status once the answer is read to its end. */
const post = (headers, body) =>
  new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end(body);
  });
const send =
  process.env.POSTS_CLIENT === 'http'
    ? post
    : async (headers, body) => {
        const res = await fetch(url, { method: 'POST', headers, body });
        await res.text();
        return res.status;
      };

const cpu0 = process.cpuUsage();
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < n; i = next++) {
      const body = JSON.stringify({ type: 'quota.threshold_crossed', timestamp: new Date().toISOString(), data: { bench: i, thresholds: [80] } });
      const id = `msg_direct${i}`;
      const at = Math.floor(Date.now() / 1000);
      const headers = { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': signatureHeader(id, at, body, [secret]) };
      const status = await send(headers, body);
      if (status !== 200) throw new Error(`the receiver answered ${status}`);
    }
  }),
);
const cpu = process.cpuUsage(cpu0);
agent.destroy();
console.log(JSON.stringify({ ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 }));
