// Reads a V8 CPU profile (.cpuprofile) and says where the time went: self and inclusive time by package or
// part of the program, and the functions with the most self time.
import { relative } from 'node:path';

/** What a stack frame belongs to: a package in node_modules, a Tollgate project, Node's internals, or V8's own. */
export function partOf(callFrame, root) {
  const { url, functionName } = callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return `node:${url.slice(5).replace(/^internal\//, '').split('/')[0]}`;
  const path = url.startsWith('file://') ? relative(root, new URL(url).pathname) : url;
  const pkg = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1];
  const project = path.match(/^(apps|libs)\/([^/]+)\//);
  return project ? `tollgate ${project[1]}/${project[2]}` : path;
}

/**
 * `watch`: `{ label, match(callFrame, part) }` entries whose inclusive time is reported (a sample counts when a
 * matching frame is anywhere on its stack).
 */
export function summarize(profile, root, { top = 20, watch = [] } = {}) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map(); // part → µs
  const inclusive = new Map(); // part → µs (each sample counted once per part on its stack)
  const functions = new Map(); // "name (part)" → µs
  const calls = new Map(); // "name (part)" → µs with the function anywhere on the stack
  const watched = new Map(watch.map((w) => [w.label, 0]));
  const fnName = (n, part) => `${n.callFrame.functionName || '(anonymous)'} (${part})`;
  let total = 0;
  let profiler = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    const leaf = nodes.get(id);
    const stack = [];
    for (let n = leaf; n; n = nodes.get(parent.get(n.id))) stack.push([n, partOf(n.callFrame, root)]);
    // The profiler's own work (starting, and building the profile when it stops) is not the program's.
    if (stack.some(([, part]) => part === 'node:inspector')) {
      profiler += dt;
      return;
    }
    const leafPart = stack[0][1];
    self.set(leafPart, (self.get(leafPart) ?? 0) + dt);
    functions.set(fnName(leaf, leafPart), (functions.get(fnName(leaf, leafPart)) ?? 0) + dt);
    for (const part of new Set(stack.map(([, part]) => part))) inclusive.set(part, (inclusive.get(part) ?? 0) + dt);
    for (const fn of new Set(stack.map(([n, part]) => fnName(n, part)))) calls.set(fn, (calls.get(fn) ?? 0) + dt);
    for (const w of watch) if (stack.some(([n, part]) => w.match(n.callFrame, part))) watched.set(w.label, watched.get(w.label) + dt);
  });
  total -= profiler;
  // Shares are of the time the thread was busy: '(idle)' is waiting for I/O.
  const busy = total - (self.get('(idle)') ?? 0);
  self.delete('(idle)');
  inclusive.delete('(idle)');
  inclusive.delete('(root)');
  functions.delete('(idle) ((idle))');
  for (const fn of ['(root) ((root))', '(idle) ((idle))']) calls.delete(fn);
  const share = (m, n = top) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, ms: us / 1000, share: us / busy }));
  return { totalMs: total / 1000, busyMs: busy / 1000, samples: profile.samples.length, self: share(self), inclusive: share(inclusive), functions: share(functions), calls: share(calls, 60), watched: [...watched].map(([name, us]) => ({ name, ms: us / 1000, share: us / busy })) };
}
