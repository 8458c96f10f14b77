import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { livePid, root, stateDir, unlessUnchanged } from '../../scripts/lib/bootstrap.mjs';

// A second `npm start` skips what has not changed: `prisma generate` and the seed run again only when their inputs
// changed or their output went missing (stamps in .tollgate/stamps).
const name = `test-${randomUUID()}`;
const output = join('.tollgate', `${name}.out`);
mkdirSync(join(root, '.tollgate'), { recursive: true });
afterAll(() => {
  rmSync(join(stateDir, 'stamps', name), { force: true });
  rmSync(join(root, output), { force: true });
});

describe('a step of npm start', () => {
  it('runs again only when its inputs changed or its output is gone', () => {
    const runs: string[] = [];
    const step = (input: string) => () => {
      runs.push(input);
      writeFileSync(join(root, output), input);
    };
    const inputs = (extra: string) => ({ files: ['prisma/schema.prisma'], extra: [extra], outputs: [output] });
    expect(unlessUnchanged(name, inputs('a'), step('a'))).toBe(true);
    expect(unlessUnchanged(name, inputs('a'), step('a'))).toBe(false);
    expect(unlessUnchanged(name, inputs('b'), step('b'))).toBe(true);
    rmSync(join(root, output));
    expect(unlessUnchanged(name, inputs('b'), step('b'))).toBe(true);
    expect(runs).toEqual(['a', 'b', 'b']);
  });

  it('takes a pid file for a running server only when the pid is a process of that name', () => {
    const pidFile = join(root, '.tollgate', `${name}.pid`);
    try {
      writeFileSync(pidFile, `${process.pid}\n`);
      expect(livePid(pidFile, 'postgres')).toBeNull(); // this test's own pid: alive, but not a postgres
      writeFileSync(pidFile, '0\n');
      expect(livePid(pidFile, 'node')).toBeNull();
    } finally {
      rmSync(pidFile, { force: true });
    }
  });
});
