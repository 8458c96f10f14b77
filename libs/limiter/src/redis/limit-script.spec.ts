import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assembleLua, type ScriptClient } from '@tollgate/lua-script';
import { describe, expect, it } from 'vitest';
import { limitScript } from './redis-engine';

const LUA = join(__dirname, '..', 'lua');

describe('the limit script', () => {
  it('is sent by the SHA1 of its assembled source', async () => {
    const assembled = assembleLua(LUA, 'limit');
    const sent: string[] = [];
    const client: ScriptClient = {
      evalsha: async (sha) => void sent.push(sha),
      eval: async () => undefined,
    };
    await limitScript.run(client, ['k'], ['consume']);
    expect(sent).toEqual([createHash('sha1').update(assembled).digest('hex')]);
    expect(limitScript.source).toBe(assembled);
  });

  it('is made of files of at most 300 lines, each starting with a header comment', () => {
    const files = ['limit.lua', ...readdirSync(join(LUA, 'includes')).map((file) => join('includes', file))];
    for (const file of files) {
      const source = readFileSync(join(LUA, file), 'utf8');
      expect(source.split('\n').length, file).toBeLessThanOrEqual(300);
      expect(source, file).toMatch(/^--/);
    }
  });

  it('holds every include exactly once and no include line', () => {
    const source = limitScript.source;
    expect(source).not.toMatch(/@include/);
    for (const file of readdirSync(join(LUA, 'includes'))) {
      const snippet = readFileSync(join(LUA, 'includes', file), 'utf8').trimEnd();
      expect(source.split(snippet).length - 1, file).toBe(1);
    }
  });
});
