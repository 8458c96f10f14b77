#!/usr/bin/env node
// The operator's overview (apps/dashboard/app/(operator)/overview) over 24 h, in Debian's Chromium, on seeded usage
// of BENCH_SEED_TENANTS (1,000) tenants × BENCH_SEED_DAYS (30) days (bench/lib.mjs seedUsageHistory, as bench/usage.mjs
// seeds it) and BENCH_VERSIONS (8) rule set versions spread over the last 24 h (the chart's markers).
// One page load, BENCH_SAMPLES (30) times after BENCH_WARMUP (5), one at a time, in one signed-in tab (its static
// files cached, as for an operator who comes back):
// - server: navigation start → the last byte of the HTML (Navigation Timing `responseEnd`): the page is sent once its
//   API reads have answered (docs/adr/0020-dashboard-pages-are-sent-whole.md), so this holds every API read;
// - client: from there until the chart is drawn at its own width (hydrated: the SVG's viewBox is the width the
//   browser measured) with its areas and the totals in the page, and then the main thread is idle (the first
//   `requestIdleCallback`); total = server + client, from navigation start.
// Baselines in the same run: /plans (a plain list page, one API read) loaded the same way; each API read the
// overview makes (with its layout's), timed alone from this process; and both pages' HTML fetched without a browser.
// A third tab loads the overview with Next's prefetches of the links in view refused, to show what they cost. A tab
// is parked on about:blank after each overview load: left there, its refresh every 10 s would load the server during
// the loads measured next (the p95 of earlier runs had it).
// Run: `npm run build && npx nx run dashboard:build && node bench/dashboard.mjs [--markdown] [--profile]`. Env: the counts above,
// BENCH_DATABASE_URL (recreated; default tollgate_bench_dash), CHROMIUM_PATH. Its own redis-server on a free port.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { freePort, startRedisServer } from '../scripts/lib/redis-server.mjs';
import { summarize } from './cpu-profile.mjs';
import { fmt, freshDemoDatabase, machine, operatorToken, seedUsageHistory, startApiNodes, summary } from './lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SEED_TENANTS = Number(process.env.BENCH_SEED_TENANTS ?? 1_000);
const SEED_DAYS = Number(process.env.BENCH_SEED_DAYS ?? 30);
const VERSIONS = Number(process.env.BENCH_VERSIONS ?? 8);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const GOAL_MS = 500;
const markdown = process.argv.includes('--markdown');
const profiling = process.argv.includes('--profile');
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench_dash';
/** As test/support/browser.ts launches it. */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const VIEWPORT = { width: 1400, height: 900 };
const OVERVIEW = '/overview?range=24h';
const PLANS = '/plans';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The built dashboard (server.mts, production) against `apiUrl`, on a free port; resolves once /login answers. */
async function startDashboard(apiUrl, secret) {
  const port = await freePort();
  const output = [];
  const child = spawn(process.execPath, ['apps/dashboard/server.mts'], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production', DASHBOARD_PORT: String(port), TOLLGATE_API_URL: apiUrl, CLIENT_ADDRESS_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c) => output.push(c.toString()));
  child.stderr.on('data', (c) => output.push(c.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i += 1) {
    try {
      if ((await fetch(`${url}/login`)).status === 200) break;
    } catch {
      // starting
    }
    if (i > 600 || child.exitCode !== null) throw new Error(`the dashboard did not start (built? npx nx run dashboard:build):\n${output.join('')}`);
    await sleep(100);
  }
  return { url, child, logs: () => output.join('') };
}

/**
 * Rule set versions published in the range, as an operator's changes publish them (a tenant renamed, through the
 * API), then dated back over the last 24 h, oldest first, so that the chart draws them as markers along its axis.
 */
async function publishVersions(db, apiUrl, token, n) {
  const acme = (await db.query(`select id from tenants where slug = 'acme'`)).rows[0].id;
  const versions = [];
  for (let i = 0; i < n; i += 1) {
    const res = await fetch(`${apiUrl}/v1/admin/tenants/${acme}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Acme Corp ${i + 1}` }),
    });
    const body = await res.json();
    if (res.status !== 200 || typeof body.ruleVersion !== 'number') throw new Error(`renaming acme answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    versions.push(body.ruleVersion);
  }
  await db.query(
    `update rule_set_versions set created_at = now() - make_interval(mins => (23 * 60 * ($2 - array_position($1::int[], version))) / $2 + 30)
     where version = any($1::int[])`,
    [versions, n],
  );
  return versions;
}

/** The overview is done when its chart is hydrated, drawn at the width it measured, with areas, and the totals shown. */
const OVERVIEW_READY = `(doc, hydrated) => {
  const chart = doc.querySelector('[data-testid="overview-chart"]');
  const svg = chart?.querySelector('svg.usage-chart-svg');
  const plot = chart?.querySelector('.usage-chart-plot');
  if (!svg || !plot || !hydrated(svg) || !doc.querySelector('[data-testid="totals-decisions-value"]')) return false;
  const drawnAt = Number(svg.getAttribute('viewBox').split(' ')[2]);
  return drawnAt === Math.floor(plot.getBoundingClientRect().width) && svg.querySelector('path.chart-allowed[d]') !== null;
}`;
/** The plans page is done when its "New plan" button works (hydrated) and the demo's plans are listed. */
const PLANS_READY = `(doc, hydrated) => hydrated(doc.querySelector('[data-testid="plan-new-open"]')) && doc.querySelector('[data-testid="plan-starter"]') !== null`;

/**
 * Runs in every document from its first script on: on the pages above, watches every frame until the page is done,
 * then waits for the main thread to be idle; both times from navigation start, in window.__bench. Elements React
 * has hydrated carry its fiber.
 */
const WATCH = `(() => {
  const ready = new Map([['/overview', ${OVERVIEW_READY}], ['/plans', ${PLANS_READY}]]).get(location.pathname);
  if (!ready) return;
  const bench = (window.__bench = { longTasks: [] });
  new PerformanceObserver((list) => bench.longTasks.push(...list.getEntries().map((e) => [e.startTime, e.duration]))).observe({ type: 'longtask' });
  const hydrated = (el) => el != null && Object.keys(el).some((k) => k.startsWith('__reactFiber$'));
  const tick = () => {
    if (bench.hydrated === undefined && hydrated(document.querySelector('main'))) bench.hydrated = performance.now();
    const svg = document.querySelector('svg.usage-chart-svg');
    if (svg && bench.chartInDom === undefined) bench.chartInDom = performance.now();
    if (hydrated(svg) && bench.chartHydrated === undefined) bench.chartHydrated = performance.now();
    if (document.readyState !== 'loading' && ready(document, hydrated)) {
      bench.ready = performance.now();
      // A page sent whole (not streamed) can hydrate between two frames: its shell no later than its content.
      bench.hydrated ??= bench.ready;
      requestIdleCallback(() => (bench.idle = performance.now()));
    } else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})()`;

async function signIn(page, dashboardUrl) {
  await page.goto(`${dashboardUrl}/login`);
  await page.getByTestId('login-email').fill('admin@tollgate.local');
  await page.getByTestId('login-password').fill('tollgate-demo');
  await page.getByTestId('login-submit').click();
  await page.waitForURL(/\/overview/);
}

/** One load of `url` in `page`: server and client parts and the moments between (ms from navigation start). */
async function loadOnce(page, url) {
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction('window.__bench && window.__bench.idle !== undefined', null, { timeout: 30_000, polling: 50 });
  const t = await page.evaluate(`(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const { longTasks, ...at } = window.__bench;
    const resources = performance.getEntriesByType('resource').filter((r) => r.startTime < at.idle);
    const scripts = resources.filter((r) => r.initiatorType === 'script');
    return {
      ...at,
      responseStart: nav.responseStart,
      responseEnd: nav.responseEnd,
      // Next's prefetches of the links in view, and other fetches the page made before it was idle.
      fetches: resources.filter((r) => r.initiatorType === 'fetch' && r.responseStatus === 200).length,
      longTasks: longTasks.filter(([start]) => start < at.idle).reduce((sum, [, d]) => sum + d, 0),
      scriptKiB: scripts.reduce((sum, r) => sum + r.decodedBodySize, 0) / 1024,
      scriptKiBFetched: scripts.reduce((sum, r) => sum + r.transferSize, 0) / 1024,
    };
  })()`);
  return {
    server: t.responseEnd,
    ttfb: t.responseStart,
    shellHydrated: t.hydrated,
    chartInDom: t.chartInDom ?? NaN,
    chartHydrated: t.chartHydrated ?? NaN,
    drawn: t.ready,
    client: t.idle - t.responseEnd,
    total: t.idle,
    fetches: t.fetches,
    longTasks: t.longTasks,
    scriptKiB: t.scriptKiB,
    scriptKiBFetched: t.scriptKiBFetched,
  };
}

/** A signed-in tab; `prefetch: false` refuses Next's prefetches of the links in view (their RSC requests) in it. */
async function signedInPage(browser, dashboardUrl, { prefetch }) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  await context.addInitScript({ content: WATCH });
  const page = await context.newPage();
  if (!prefetch) {
    // Through CDP, not page.route(), which would turn the HTTP cache off for every request of the tab.
    const cdp = await context.newCDPSession(page);
    cdp.on('Fetch.requestPaused', ({ requestId, request }) => {
      const prefetching = Object.keys(request.headers).some((name) => name.toLowerCase() === 'next-router-prefetch');
      void (prefetching ? cdp.send('Fetch.failRequest', { requestId, errorReason: 'Aborted' }) : cdp.send('Fetch.continueRequest', { requestId })).catch(() => undefined);
    });
    await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*_rsc=*' }] });
  }
  await signIn(page, dashboardUrl);
  return page;
}

async function browserLoads(browser, dashboardUrl) {
  const page = await signedInPage(browser, dashboardUrl, { prefetch: true });
  const quiet = await signedInPage(browser, dashboardUrl, { prefetch: false });
  const targets = [
    { name: 'overview', page, url: `${dashboardUrl}${OVERVIEW}` },
    { name: 'plans', page, url: `${dashboardUrl}${PLANS}` },
    { name: 'overviewNoPrefetch', page: quiet, url: `${dashboardUrl}${OVERVIEW}` },
  ];
  const samples = new Map(targets.map((t) => [t.name, []]));
  // Interleaved, the order turned every round, so that each meets the same moments of this machine.
  for (let i = 0; i < WARMUP + SAMPLES; i += 1) {
    for (const target of i % 2 === 0 ? targets : [...targets].reverse()) {
      const sample = await loadOnce(target.page, target.url);
      if (i >= WARMUP) samples.get(target.name).push(sample);
      // A tab left on the overview refreshes it every 10 s (a whole server render and its reads), which would land in
      // the middle of the next loads measured: parked on a blank page instead.
      if (target.url.endsWith(OVERVIEW)) await target.page.goto('about:blank');
    }
  }
  // What was measured was the page with its data: the overview's markers, buckets and top lists.
  await page.goto(`${dashboardUrl}${OVERVIEW}`);
  await page.waitForFunction('window.__bench && window.__bench.idle !== undefined');
  const shown = {
    markers: await page.getByTestId('overview-chart-marker').count(),
    buckets: await page.getByTestId('overview-chart-table').locator('tbody tr').count(),
    topTenants: await page.getByTestId('top-tenants').locator('tbody tr').count(),
    decisions: await page.getByTestId('totals-decisions-value').textContent(),
  };
  mkdirSync(join(root, 'test-results'), { recursive: true });
  await page.screenshot({ path: join(root, 'test-results', 'bench-dashboard-overview.png'), fullPage: true });
  await page.context().close();
  await quiet.context().close();
  const of = (name) => Object.fromEntries(Object.keys(samples.get(name)[0]).map((key) => [key, summary(samples.get(name).map((x) => x[key]))]));
  return { overview: of('overview'), plans: of('plans'), overviewNoPrefetch: of('overviewNoPrefetch'), shown };
}

/**
 * `--profile`: the browser's main thread over BENCH_PROFILE_LOADS (5) more loads of the overview (V8's sampling
 * profiler through CDP): how much of the client part it was busy, and in what (by script, the bundles minified).
 */
async function profileClient(browser, dashboardUrl) {
  const page = await signedInPage(browser, dashboardUrl, { prefetch: true });
  for (let i = 0; i < 2; i += 1) await loadOnce(page, `${dashboardUrl}${OVERVIEW}`);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  const loads = [];
  for (let i = 0; i < Number(process.env.BENCH_PROFILE_LOADS ?? 5); i += 1) loads.push(await loadOnce(page, `${dashboardUrl}${OVERVIEW}`));
  const { profile } = await cdp.send('Profiler.stop');
  await page.context().close();
  const byScript = (name) => name.replaceAll(/https?:\/\/[^/ ]+\/_next\/static\/chunks\//g, 'chunk ').replaceAll(/https?:\/\/[^/ ]+/g, '');
  const s = summarize(profile, root, { top: 10 });
  const named = (xs) => xs.map((x) => ({ ...x, name: byScript(x.name) }));
  return { loads: loads.length, wallMs: loads.reduce((sum, l) => sum + l.total, 0), busyMs: s.busyMs, self: named(s.self), functions: named(s.functions) };
}

/** The overview's API reads as its layout and page make them (apps/dashboard/lib/api*.ts), for the range ending now. */
function overviewReads() {
  const to = new Date(Math.ceil(Date.now() / 60_000) * 60_000);
  const from = new Date(to.getTime() - 86_400_000);
  const before = new Date(from.getTime() - 86_400_000);
  const range = (a, b) => `from=${a.toISOString()}&to=${b.toISOString()}`;
  const top = (by) => `/v1/admin/usage/top?${range(from, to)}&by=${by}&metric=deny_rate&minDecisions=10&top=5`;
  return [
    ['layout: `GET /v1/auth/me`', '/v1/auth/me'],
    ['layout: `GET /v1/admin/rule-sets/current`', '/v1/admin/rule-sets/current'],
    ['usage, 24 h', `/v1/admin/usage?${range(from, to)}`],
    ['usage, the 24 h before', `/v1/admin/usage?${range(before, from)}`],
    ['top tenants by 429 rate, 24 h', top('tenants')],
    ['top endpoint policies by 429 rate, 24 h', top('policies')],
    ['rule set versions (a page of 200)', '/v1/admin/rule-sets?pageSize=200'],
  ];
}
const PLANS_READ = ['plans (a page of 200)', '/v1/admin/plans?pageSize=200'];

/** Each read alone (in turn, one at a time), all of the overview's at once, and both pages' HTML without a browser. */
async function serverParts(apiUrl, dashboardUrl, token) {
  const time = async (url, headers) => {
    const t0 = performance.now();
    const res = await fetch(url, { headers, redirect: 'manual' });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${res.status} ${url}: ${body.slice(0, 300)}`);
    return { ms: performance.now() - t0, bytes: Buffer.byteLength(body) };
  };
  const api = (path) => time(`${apiUrl}${path}`, { authorization: `Bearer ${token}` });
  const html = (path) => time(`${dashboardUrl}${path}`, { cookie: `tg_session=${token}` });
  const labels = [...overviewReads().map(([label]) => label), PLANS_READ[0]];
  const alone = new Map(labels.map((l) => [l, []]));
  const bytes = new Map();
  const together = [];
  const pages = new Map([[OVERVIEW, []], [PLANS, []]]);
  for (let i = 0; i < WARMUP + SAMPLES; i += 1) {
    const reads = [...overviewReads(), PLANS_READ];
    for (const [label, path] of reads) {
      const { ms, bytes: b } = await api(path);
      if (i >= WARMUP) alone.get(label).push(ms);
      bytes.set(label, b);
    }
    const t0 = performance.now();
    await Promise.all(overviewReads().map(([, path]) => api(path)));
    if (i >= WARMUP) together.push(performance.now() - t0);
    for (const path of pages.keys()) {
      const { ms } = await html(path);
      if (i >= WARMUP) pages.get(path).push(ms);
    }
  }
  return {
    reads: labels.map((label) => ({ label, bytes: bytes.get(label), ...summary(alone.get(label)) })),
    together: summary(together),
    html: { overview: summary(pages.get(OVERVIEW)), plans: summary(pages.get(PLANS)) },
  };
}

// ---- the run -----------------------------------------------------------------------------------------------------

const ownRedis = await startRedisServer('tollgate-bench-dash');
const secret = randomBytes(32).toString('hex');
let results;
let api;
let dashboard;
let browser;
try {
  await freshDemoDatabase(databaseUrl);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const seeded = await seedUsageHistory(db, { tenants: SEED_TENANTS, days: SEED_DAYS });
    [api] = await startApiNodes(1, { DATABASE_URL: databaseUrl, REDIS_URL: ownRedis.url, CLIENT_ADDRESS_SECRET: secret, LOGIN_ATTEMPTS_PER_MINUTE_PER_ADDRESS: '1000000' });
    const token = await operatorToken(api.url);
    const versions = await publishVersions(db, api.url, token, VERSIONS);
    dashboard = await startDashboard(api.url, secret);
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const loads = await browserLoads(browser, dashboard.url);
    const parts = await serverParts(api.url, dashboard.url, token);
    const clientProfile = profiling ? await profileClient(browser, dashboard.url) : null;
    results = {
      machine: machine(),
      seeded: { tenants: SEED_TENANTS, days: SEED_DAYS, ...seeded.rows, seedSeconds: seeded.seedSeconds, versions: versions.length },
      samples: SAMPLES,
      warmup: WARMUP,
      ...loads,
      ...parts,
      clientProfile,
    };
  } finally {
    await db.end();
  }
} finally {
  await browser?.close();
  for (const child of [dashboard?.child, api?.child]) {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }
  await ownRedis.stop();
}

if (!markdown) {
  console.log(JSON.stringify(results, null, 2));
} else {
  const { machine: m, seeded, overview, plans, overviewNoPrefetch: quiet, shown, reads, together, html, clientProfile } = results;
  const ms = (x) => fmt(x, 0);
  const ratio = (a, b) => `${fmt(a / b, 2)}×`;
  const met = overview.total.p95 <= GOAL_MS;
  const row = (label, x, base) => `| ${label} | ${ms(x.p50)} | ${ms(x.p95)} | ${ms(x.max)} | ${base ? ratio(x.p95, base.p95) : ''} |`;
  const lines = [
    `Machine: ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}, Redis ${m.redis}, ${m.date}.`,
    '',
    `Seeded ${fmt(seeded.tenants)} tenants × ${seeded.days} days (${fmt(seeded.m)} minute, ${fmt(seeded.h)} hour, ${fmt(seeded.d)} day rows; ${fmt(seeded.seedSeconds)} s) and ${seeded.versions} rule set versions over the last 24 h. The overview drew ${shown.buckets} buckets, ${shown.markers} markers, ${shown.topTenants} top tenants, ${shown.decisions} decisions. ${results.samples} loads of each page after ${results.warmup}, interleaved, one at a time, ${VIEWPORT.width}×${VIEWPORT.height}, static files cached:`,
    '',
    '| in Chromium (ms from navigation start) | p50 | p95 | max | p95 vs /plans |',
    '|---|---:|---:|---:|---:|',
    row('**overview 24 h: total** (server + client)', overview.total, plans.total),
    row('overview: server (HTML `responseEnd`)', overview.server, plans.server),
    row('overview: client (`responseEnd` → chart drawn and idle)', overview.client, plans.client),
    row('overview: first byte (the shell, after the layout\'s reads)', overview.ttfb, plans.ttfb),
    row('overview: shell hydrated', overview.shellHydrated, plans.shellHydrated),
    row('overview: chart in the page (server-drawn SVG)', overview.chartInDom),
    row('overview: chart hydrated', overview.chartHydrated),
    row('overview: chart drawn at its measured width', overview.drawn, plans.drawn),
    row('baseline: /plans, total', plans.total),
    row('/plans: server', plans.server),
    row('/plans: client', plans.client),
    row('overview with Next\'s link prefetches refused: total', quiet.total, plans.total),
    row('… server', quiet.server, plans.server),
    row('… client', quiet.client, plans.client),
    '',
    `Overview 24 h, total p95 **${ms(overview.total.p95)} ms** (goal ≤ ${GOAL_MS} ms: **${met ? 'met' : 'not met'}**), ${ratio(overview.total.p95, plans.total.p95)} the /plans page's (p50 ${ratio(overview.total.p50, plans.total.p50)}). Per load (p50): ${ms(overview.fetches.p50)} prefetches of links in view by the overview, ${ms(plans.fetches.p50)} by /plans; long tasks ${ms(overview.longTasks.p50)} and ${ms(plans.longTasks.p50)} ms; scripts ${fmt(overview.scriptKiB.p50)} and ${fmt(plans.scriptKiB.p50)} KiB (${fmt(overview.scriptKiBFetched.p50)} fetched, the rest cached).`,
    '',
    '| without a browser, from this process | bytes | p50 | p95 | max | p95 vs plans read |',
    '|---|---:|---:|---:|---:|---:|',
    ...reads.map((r) => `| ${r.label} | ${fmt(r.bytes)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.max)} | ${ratio(r.p95, reads.at(-1).p95)} |`),
    `| the overview's 7 reads at once (as its server render makes them) | | ${ms(together.p50)} | ${ms(together.p95)} | ${ms(together.max)} | ${ratio(together.p95, reads.at(-1).p95)} |`,
    `| HTML of \`${OVERVIEW}\`, whole (the session's cookie) | | ${ms(html.overview.p50)} | ${ms(html.overview.p95)} | ${ms(html.overview.max)} | |`,
    `| HTML of \`${PLANS}\`, whole | | ${ms(html.plans.p50)} | ${ms(html.plans.p95)} | ${ms(html.plans.max)} | |`,
  ];
  if (clientProfile) {
    const top = (xs) => xs.slice(0, 6).map((x) => `${x.name} ${ms(x.ms)} ms`).join(', ');
    lines.push(
      '',
      `Chromium's main thread over ${clientProfile.loads} more loads of the overview (${ms(clientProfile.wallMs)} ms from navigation start to idle, summed): busy ${ms(clientProfile.busyMs)} ms (${fmt((100 * clientProfile.busyMs) / clientProfile.wallMs)} %); by script: ${top(clientProfile.self)}; functions: ${top(clientProfile.functions)}.`,
    );
  }
  console.log(lines.join('\n'));
}
