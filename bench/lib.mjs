// Shared by the benchmarks: machine facts, timing loops, and the results file.
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';

export function machine() {
  const redis = execFileSync('redis-server', ['--version']).toString().match(/v=(\S+)/)?.[1] ?? '?';
  return {
    cpu: `${cpus()[0]?.model ?? '?'} × ${cpus().length}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    redis,
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
  };
}

/** Runs `op` with `inFlight` concurrent loops for `ms`; returns operations per second. */
export async function throughput(op, { inFlight = 64, ms = 5_000, warmupMs = 1_000 } = {}) {
  const runFor = async (duration) => {
    let count = 0;
    const end = performance.now() + duration;
    await Promise.all(
      Array.from({ length: inFlight }, async (_, worker) => {
        let i = worker;
        while (performance.now() < end) {
          await op(i);
          i += inFlight;
          count += 1;
        }
      }),
    );
    return count;
  };
  await runFor(warmupMs);
  const start = performance.now();
  const count = await runFor(ms);
  return count / ((performance.now() - start) / 1000);
}

export const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
