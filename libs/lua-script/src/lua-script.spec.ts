import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LuaScript, type ScriptClient } from './lua-script';

/** A client that answers NOSCRIPT to EVALSHA when told to, and records what it was sent. */
function fakeClient(noScript: boolean) {
  const sent: { command: 'evalsha' | 'eval'; first: string }[] = [];
  const client: ScriptClient = {
    async evalsha(sha) {
      sent.push({ command: 'evalsha', first: sha });
      if (noScript) throw new Error('NOSCRIPT No matching script. Please use EVAL.');
      return 'ok';
    },
    async eval(script) {
      sent.push({ command: 'eval', first: script });
      return 'ok';
    },
  };
  return { client, sent };
}

function scriptDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'lua-'));
  mkdirSync(join(dir, 'includes'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('LuaScript', () => {
  it('runs by SHA1 and falls back to EVAL with the assembled source on NOSCRIPT', async () => {
    const script = LuaScript.load(scriptDir({ 'main.lua': 'return 1\n' }), 'main');
    const ok = fakeClient(false);
    await script.run(ok.client, ['k'], ['a']);
    expect(ok.sent).toEqual([{ command: 'evalsha', first: script.sha }]);
    const lost = fakeClient(true);
    await script.run(lost.client, ['k'], ['a']);
    expect(lost.sent.map((s) => s.command)).toEqual(['evalsha', 'eval']);
    expect(lost.sent[1]?.first).toBe(script.source);
  });

  it('resolves nested includes once each, where first included', () => {
    const dir = scriptDir({ 'includes/a.lua': 'local a = 1\n', 'includes/b.lua': '--- @include "a"\nlocal b = a\n', 'main.lua': '--- @include "b"\n--- @include "a"\nreturn b\n' });
    expect(LuaScript.load(dir, 'main').source).toBe('local a = 1\nlocal b = a\n\nreturn b\n');
  });
});
