import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleLua, LuaScript, type ScriptClient } from './lua-script';
import { limitScript } from './redis-engine';

const LUA = join(__dirname, '..', 'lua');

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

describe('LuaScript', () => {
  it('sends the SHA1 of the assembled limit script', async () => {
    const assembled = assembleLua(LUA, 'limit');
    const { client, sent } = fakeClient(false);
    await limitScript.run(client, ['k'], ['consume']);
    expect(sent).toEqual([{ command: 'evalsha', first: createHash('sha1').update(assembled).digest('hex') }]);
    expect(limitScript.source).toBe(assembled);
  });

  it('assembles every include exactly once and leaves no include line', () => {
    const source = limitScript.source;
    expect(source).not.toMatch(/@include/);
    for (const file of readdirSync(join(LUA, 'includes'))) {
      const snippet = readFileSync(join(LUA, 'includes', file), 'utf8').trimEnd();
      expect(source.split(snippet).length - 1, file).toBe(1);
    }
  });

  it('falls back to EVAL with the assembled source on NOSCRIPT', async () => {
    const { client, sent } = fakeClient(true);
    await limitScript.run(client, ['k'], ['consume']);
    expect(sent.map((s) => s.command)).toEqual(['evalsha', 'eval']);
    expect(sent[1]?.first).toBe(limitScript.source);
  });

  it('resolves nested includes once each, where first included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lua-'));
    mkdirSync(join(dir, 'includes'));
    writeFileSync(join(dir, 'includes', 'a.lua'), 'local a = 1\n');
    writeFileSync(join(dir, 'includes', 'b.lua'), '--- @include "a"\nlocal b = a\n');
    writeFileSync(join(dir, 'main.lua'), '--- @include "b"\n--- @include "a"\nreturn b\n');
    expect(LuaScript.load(dir, 'main').source).toBe('local a = 1\nlocal b = a\n\nreturn b\n');
  });
});
