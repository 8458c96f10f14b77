import { EventEmitter } from 'node:events';
import type { INestApplicationContext } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EXIT_CODE, exitOnSignals, REPEAT_WINDOW_MS, ShutdownSteps, within } from './shutdown';

/** An app whose close() the test ends (or never does), signals from an emitter, exits and log lines recorded. */
function harness(timeoutMs = 1_000) {
  let finish: (err?: Error) => void = () => undefined;
  const closed = new Promise<void>((resolve, reject) => {
    finish = (err) => (err ? reject(err) : resolve());
  });
  const app = { close: vi.fn(() => closed) } as unknown as INestApplicationContext;
  const signals = new EventEmitter();
  const exits: number[] = [];
  const lines: string[] = [];
  const steps = new ShutdownSteps();
  const stop = exitOnSignals(app, {
    timeoutMs,
    steps,
    log: { log: (m) => lines.push(m), error: (m) => lines.push(m) },
    exit: (code) => void exits.push(code),
    signals: signals as unknown as Pick<NodeJS.Process, 'on' | 'off'>,
  });
  return { app, signals, exits, lines, steps, finish, stop };
}

describe('exitOnSignals', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('closes the app on SIGTERM and exits 0 once every hook has finished', async () => {
    const h = harness();
    h.signals.emit('SIGTERM', 'SIGTERM');
    expect(h.app.close).toHaveBeenCalledOnce();
    expect(h.exits).toEqual([]);
    h.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.exits).toEqual([EXIT_CODE.clean]);
    expect(h.lines).toEqual(['SIGTERM: shutting down, for at most 1000 ms']);
    // The bound does not fire after a clean exit.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(h.exits).toEqual([EXIT_CODE.clean]);
  });

  it('exits 70 at the bound, naming the steps still running, when a hook never ends', async () => {
    const h = harness(2_000);
    void h.steps.run('Postgres disconnect', () => new Promise(() => undefined));
    h.signals.emit('SIGINT', 'SIGINT');
    await vi.advanceTimersByTimeAsync(1_999);
    expect(h.exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.exits).toEqual([EXIT_CODE.forced]);
    expect(h.lines.at(-1)).toBe('shutdown did not finish within 2000 ms (SHUTDOWN_TIMEOUT_MS): exiting (code 70); not finished: Postgres disconnect (2000 ms)');
  });

  it('exits 70 at once on a second signal while the first shutdown waits', async () => {
    const h = harness(60_000);
    h.signals.emit('SIGTERM', 'SIGTERM');
    // The same Ctrl-C arriving twice (the terminal's group and a supervisor) does not cut the shutdown…
    h.signals.emit('SIGINT', 'SIGINT');
    expect(h.exits).toEqual([]);
    // …someone insisting does.
    await vi.advanceTimersByTimeAsync(REPEAT_WINDOW_MS);
    h.signals.emit('SIGINT', 'SIGINT');
    expect(h.exits).toEqual([EXIT_CODE.forced]);
    expect(h.app.close).toHaveBeenCalledOnce();
    expect(h.lines.at(-1)).toBe('SIGINT again: exiting now (code 70) without waiting for the shutdown hooks');
  });

  it('exits 70 when a hook throws, saying so', async () => {
    const h = harness();
    h.signals.emit('SIGTERM', 'SIGTERM');
    h.finish(new Error('boom'));
    await vi.advanceTimersByTimeAsync(0);
    expect(h.exits).toEqual([EXIT_CODE.forced]);
    expect(h.lines.at(-1)).toBe('shutdown failed: boom');
  });

  it('stops listening when asked', () => {
    const h = harness();
    h.stop();
    h.signals.emit('SIGTERM', 'SIGTERM');
    expect(h.app.close).not.toHaveBeenCalled();
  });
});

describe('ShutdownSteps', () => {
  it('lists what runs, and forgets each step once it ends or throws', async () => {
    const steps = new ShutdownSteps();
    let end: () => void = () => undefined;
    const running = steps.run('BullMQ worker of usage', () => new Promise<void>((r) => (end = r)));
    await expect(steps.run('health listener', () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(steps.pending(Date.now()).map((p) => p.replace(/ \(\d+ ms\)$/, ''))).toEqual(['BullMQ worker of usage']);
    end();
    await running;
    expect(steps.pending()).toEqual([]);
  });
});

describe('within', () => {
  it('answers the work, or timeout once the time is up', async () => {
    expect(await within(Promise.resolve(7), 1_000)).toBe(7);
    expect(await within(new Promise(() => undefined), 10)).toBe('timeout');
  });
});
