// Loaded with `node --import` into a process that bench/enforcement.mjs profiles: the first 'cpu-profile' message
// on the IPC channel starts V8's CPU profiler, the second stops it and writes the profile to BENCH_CPU_PROFILE
// (Chrome DevTools format), so the profile covers the measured load only. Not a signal: `--cpu-prof` is not
// written when Nest re-raises SIGTERM on shutdown, and Nest's shutdown hooks take SIGUSR2 as well.
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const file = process.env.BENCH_CPU_PROFILE;
if (!file || !process.channel) throw new Error('cpu-profile.mjs: needs BENCH_CPU_PROFILE and an IPC channel');
process.channel.unref(); // the channel alone keeps no process alive
let session = null;

const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));

process.on('message', (message) => {
  if (message !== 'cpu-profile') return;
  if (session === null) {
    session = new Session();
    session.connect();
    void post('Profiler.enable').then(() => post('Profiler.setSamplingInterval', { interval: 500 })).then(() => post('Profiler.start'));
    return;
  }
  void post('Profiler.stop').then(({ profile }) => {
    writeFileSync(`${file}.partial`, JSON.stringify(profile));
    renameSync(`${file}.partial`, file); // whole, or not there yet
    session.disconnect();
    session = null;
  });
});
