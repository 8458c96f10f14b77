#!/usr/bin/env node
// One global quota served from several regions, each deciding on its own Redis: a deterministic simulation of the
// strategies of docs/adr/0025-one-quota-across-regions.md (static split, periodic rebalancing, leases from a global
// pool), on 2 and 3 regions, uniform, skewed and shifting traffic, with and without one region cut off for a while.
// It measures over-admission (admitted beyond the limit, per window) and unused quota (requests denied while the
// window's quota was not used up: an exact global counter would have admitted them). No Redis, no clock: ticks.
// Run: `node bench/regions.mjs` (JSON) or `--markdown` (the BENCHMARKS.md section); SEED=<n> for another draw.

import { pathToFileURL } from 'node:url';

/** Mulberry32: a small seeded PRNG, so that every run draws the same traffic. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A Poisson draw of mean `mean` (Knuth's method; the means here are small). */
function poisson(random, mean) {
  const floor = Math.exp(-mean);
  let k = 0;
  for (let p = random(); p > floor; p *= random()) k += 1;
  return k;
}

/** How traffic is shared between regions at tick `t`: weights summing to 1. */
export const TRAFFIC = {
  uniform: (n) => () => Array(n).fill(1 / n),
  /** One region carries most of it (70 % of 2; 70/20/10 % of 3). */
  skewed: (n) => () => (n === 2 ? [0.7, 0.3] : [0.7, 0.2, 0.1].slice(0, n)),
  /** Follow the sun: each region's share rises and falls over the run, the peak moving from region to region. */
  shifting: (n, ticks) => (t) => {
    const raw = Array.from({ length: n }, (_, i) => 1 + 0.9 * Math.cos(2 * Math.PI * (t / ticks - i / n)));
    const sum = raw.reduce((a, b) => a + b, 0);
    return raw.map((w) => w / sum);
  },
};

export const DEFAULTS = {
  /** The global quota: `limit` per window of `windowTicks` ticks (a tick is a second: 1,000 a minute). */
  limit: 1000,
  windowTicks: 60,
  windows: 60,
  /** Offered load per window, as a multiple of the limit (the report runs 1.0 and 1.2). */
  demand: 1.2,
  /** Rebalancing: how often the coordinator (in region 0) reads every region's counts and hands out new allowances. */
  rebalanceTicks: 10,
  /** Leases: units a region borrows from the pool (in region 0) at a time. */
  leaseSize: 50,
  /** Leases, reclaiming variant: ticks without news from a region after which the pool takes its outstanding lease back. */
  leaseTtlTicks: 5,
};

/**
 * The strategies. Each keeps its own state and answers `admit(region)` for one request; `tick(t, reachable)` runs
 * between ticks (a region is unreachable while cut off from region 0, where the coordinator and the pool live;
 * it still serves its own clients on its own Redis).
 */
export const STRATEGIES = {
  /** Each region admits limit ÷ N of every window on its own Redis. Needs no exchange at all. */
  static: (n, o) => {
    const shares = splitEvenly(o.limit, n);
    const used = Array(n).fill(0);
    return {
      windowStart: () => void used.fill(0),
      tick: () => {},
      admit: (r) => take(used, shares, r),
    };
  },
  /** Periodic rebalancing, safe: a cut-off region keeps its allowance (limit ÷ N in a new window) and it stays reserved. */
  rebalance: (n, o) => rebalancing(n, o, false),
  /** Periodic rebalancing, available: a cut-off region's unspent allowance is handed to the others while it spends it. */
  'rebalance, reclaim': (n, o) => rebalancing(n, o, true),
  /** Leases from a global pool, safe: a cut-off region spends what it holds, then denies; what it holds stays lent. */
  lease: (n, o) => leasing(n, o, false),
  /** Leases, available: the pool takes a silent region's outstanding lease back after a TTL while the region spends it. */
  'lease, reclaim': (n, o) => leasing(n, o, true),
};

/** One unit of region `r`'s allowance, if it has one left. */
function take(used, allowance, r) {
  if (used[r] >= allowance[r]) return false;
  used[r] += 1;
  return true;
}

/** `total` in `n` integer parts, the remainder to the first ones. */
function splitEvenly(total, n) {
  return Array.from({ length: n }, (_, i) => Math.floor(total / n) + (i < total % n ? 1 : 0));
}

/** `total` in integer parts proportional to `weights` (largest remainders). */
function splitByWeight(total, weights) {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (sum > 0 ? (total * w) / sum : total / weights.length));
  const parts = exact.map(Math.floor);
  const order = exact.map((x, i) => [x - Math.floor(x), i]).sort((a, b) => b[0] - a[0]);
  for (let k = 0; k < total - parts.reduce((a, b) => a + b, 0); k += 1) parts[order[k][1]] += 1;
  return parts;
}

function rebalancing(n, o, reclaim) {
  const allowance = Array(n).fill(0);
  const used = Array(n).fill(0);
  /** What the coordinator last heard: each region's count this window, and what it holds for a cut-off region. */
  const known = Array(n).fill(0);
  const reserved = Array(n).fill(0);
  const asked = Array(n).fill(0); // requests since the last exchange: the demand the next split follows
  const fallback = splitEvenly(o.limit, n);
  const exchange = (reachable) => {
    for (let r = 0; r < n; r += 1) {
      if (reachable[r]) {
        known[r] = used[r];
        reserved[r] = 0;
      } else if (!reclaim) reserved[r] = Math.max(reserved[r], allowance[r] - known[r]);
    }
    // Shares follow the demand seen since the last exchange (a little for a region that saw none: it may see some).
    const demand = asked.map((d, r) => (reachable[r] ? d + 0.5 : 0));
    const left = o.limit - known.reduce((a, b) => a + b, 0) - reserved.reduce((a, b) => a + b, 0);
    const parts = splitByWeight(Math.max(0, left), demand);
    for (let r = 0; r < n; r += 1) if (reachable[r]) allowance[r] = used[r] + parts[r];
    asked.fill(0);
  };
  return {
    windowStart: (_t, reachable) => {
      used.fill(0);
      known.fill(0);
      reserved.fill(0);
      // A region cut off at a window's start cannot hear its allowance: it takes limit ÷ N on its own.
      for (let r = 0; r < n; r += 1) {
        if (!reachable[r]) {
          allowance[r] = fallback[r];
          if (!reclaim) reserved[r] = fallback[r];
        }
      }
      exchange(reachable);
    },
    tick: (t, reachable) => {
      if (t % o.rebalanceTicks === 0) exchange(reachable);
    },
    admit: (r) => {
      asked[r] += 1;
      return take(used, allowance, r);
    },
  };
}

function leasing(n, o, reclaim) {
  const held = Array(n).fill(0);
  const silentSince = Array(n).fill(null);
  let lent = 0; // units of this window the pool has handed out
  let reachable = Array(n).fill(true);
  const hear = (t, reach) => {
    reachable = reach;
    for (let r = 0; r < n; r += 1) {
      if (reach[r]) silentSince[r] = null;
      else if (silentSince[r] === null) silentSince[r] = { at: t, reclaimed: false };
      else if (reclaim && !silentSince[r].reclaimed && t - silentSince[r].at >= o.leaseTtlTicks) {
        // The pool takes a silent region's lease back (it may be gone); the region, unaware, keeps spending it.
        lent -= held[r];
        silentSince[r].reclaimed = true;
      }
    }
  };
  return {
    windowStart: (t, reach) => {
      held.fill(0); // a lease lasts until its window ends
      lent = 0;
      hear(t, reach);
    },
    tick: hear,
    admit: (r) => {
      if (held[r] === 0 && reachable[r]) {
        const granted = Math.min(o.leaseSize, o.limit - lent);
        lent += granted;
        held[r] += granted;
      }
      if (held[r] === 0) return false;
      held[r] -= 1;
      return true;
    },
  };
}

/**
 * One run: `n` regions, a traffic shape, a strategy, optionally region `n - 1` cut off from ticks `cut[0]` to `cut[1]`.
 * Answers per window the offered and admitted counts, and the totals the report reads.
 */
export function simulate({ n, traffic, strategy, cut = null, seed = 1, options = {} }) {
  const o = { ...DEFAULTS, ...options };
  const random = prng(seed);
  const ticks = o.windowTicks * o.windows;
  const share = TRAFFIC[traffic](n, ticks);
  const s = STRATEGIES[strategy](n, o);
  const perTick = (o.limit * o.demand) / o.windowTicks;
  const windows = [];
  const cutRegion = { asked: 0, admitted: 0 };
  for (let w = 0; w < o.windows; w += 1) {
    let offered = 0;
    let admitted = 0;
    let deniedWhileLeft = 0;
    for (let k = 0; k < o.windowTicks; k += 1) {
      const t = w * o.windowTicks + k;
      const isCut = cut !== null && t >= cut[0] && t < cut[1];
      const reachable = Array.from({ length: n }, (_, r) => !(isCut && r === n - 1));
      if (k === 0) s.windowStart(t, reachable);
      else s.tick(t, reachable);
      // This tick's requests from every region, in a random order.
      const arrivals = share(t).flatMap((weight, r) => Array(poisson(random, perTick * weight)).fill(r));
      for (let i = arrivals.length - 1; i > 0; i -= 1) {
        const j = Math.floor(random() * (i + 1));
        [arrivals[i], arrivals[j]] = [arrivals[j], arrivals[i]];
      }
      for (const r of arrivals) {
        offered += 1;
        const ok = s.admit(r);
        if (ok) admitted += 1;
        else if (admitted < o.limit) deniedWhileLeft += 1;
        if (isCut && r === n - 1) {
          cutRegion.asked += 1;
          if (ok) cutRegion.admitted += 1;
        }
      }
    }
    // An exact global counter admits min(offered, limit): what falls short of it is quota left unused.
    const unused = Math.min(deniedWhileLeft, Math.max(0, o.limit - admitted));
    windows.push({ offered, admitted, over: Math.max(0, admitted - o.limit), unused });
  }
  const ideal = windows.reduce((a, w) => a + Math.min(w.offered, o.limit), 0);
  const sum = (key) => windows.reduce((a, w) => a + w[key], 0);
  return {
    windows,
    overTotal: sum('over'),
    overMax: Math.max(...windows.map((w) => w.over)),
    unusedTotal: sum('unused'),
    ideal,
    cutRegion: cut === null ? null : cutRegion,
  };
}

/** The last region is cut off from the middle of the 21st window to the middle of the 36th. */
export const CUT = [20 * DEFAULTS.windowTicks + 30, 35 * DEFAULTS.windowTicks + 30];

/** Every scenario of the report: offered 1.0 and 1.2 × the limit, 2 and 3 regions, three traffic shapes, without and with the cut. */
export function scenarios() {
  return [1.0, 1.2].flatMap((demand) =>
    [2, 3].flatMap((n) => Object.keys(TRAFFIC).flatMap((traffic) => [null, CUT].map((cut) => ({ demand, n, traffic, cut })))),
  );
}

function report(seed) {
  return scenarios().map(({ demand, n, traffic, cut }) => ({
    demand,
    regions: n,
    traffic,
    cut: cut !== null,
    results: Object.fromEntries(Object.keys(STRATEGIES).map((strategy) => [strategy, simulate({ n, traffic, strategy, cut, seed, options: { demand } })])),
  }));
}

const percent = (part, whole) => `${((100 * part) / whole).toFixed(1)} %`;

function markdown(rows, seed) {
  const names = Object.keys(STRATEGIES);
  const o = DEFAULTS;
  const lines = [
    `Command: \`node bench/regions.mjs --markdown\` (seed ${seed}; deterministic: the same seed prints the same table).`,
    `Limit ${o.limit} per window of ${o.windowTicks} ticks, ${o.windows} windows; offered 1.0× or 1.2× the limit per window (Poisson per tick and region, requests of all regions interleaved at random); rebalancing every ${o.rebalanceTicks} ticks; leases of ${o.leaseSize}, reclaimed after ${o.leaseTtlTicks} silent ticks. Cut: the last region cannot reach region 0 (coordinator, pool) from tick ${CUT[0]} to ${CUT[1]} (15 windows).`,
    '',
    'Each cell: **over-admission** (admitted beyond the limit, summed over windows, as a share of the limit × windows; the worst window in units) / **unused quota** (denied while the window had quota left, as a share of what an exact global counter admits).',
    '',
    `| offered | regions | traffic | cut | ${names.join(' | ')} |`,
    `|---:|---:|---|---|${names.map(() => '---').join('|')}|`,
  ];
  for (const row of rows) {
    const cells = names.map((name) => {
      const r = row.results[name];
      return `${percent(r.overTotal, o.limit * o.windows)} (max ${r.overMax}) / ${percent(r.unusedTotal, r.ideal)}`;
    });
    lines.push(`| ${row.demand.toFixed(1)}× | ${row.regions} | ${row.traffic} | ${row.cut ? 'yes' : 'no'} | ${cells.join(' | ')} |`);
  }
  lines.push('', 'The cut-off region during the cut: the share of its own requests it admitted.', '');
  lines.push(`| offered | regions | traffic | ${names.join(' | ')} |`, `|---:|---:|---|${names.map(() => '---:').join('|')}|`);
  for (const row of rows.filter((r) => r.cut)) {
    const cells = names.map((name) => percent(row.results[name].cutRegion.admitted, row.results[name].cutRegion.asked));
    lines.push(`| ${row.demand.toFixed(1)}× | ${row.regions} | ${row.traffic} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const seed = Number(process.env.SEED ?? 1);
  const rows = report(seed);
  if (process.argv.includes('--markdown')) console.log(markdown(rows, seed));
  else console.log(JSON.stringify(rows.map((r) => ({ ...r, results: Object.fromEntries(Object.entries(r.results).map(([k, v]) => [k, { ...v, windows: undefined }])) })), null, 2));
}
