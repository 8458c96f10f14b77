import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The subset of an ioredis client (single node or cluster) that scripts need. */
export interface ScriptClient {
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/**
 * A Lua script from `lua/`, run by SHA. After a `SCRIPT FLUSH` or a Redis restart the first `EVALSHA`
 * answers NOSCRIPT; the script then runs by `EVAL`, which also caches it again for the next `EVALSHA`.
 */
export class LuaScript {
  readonly source: string;
  readonly sha: string;

  constructor(readonly name: string) {
    this.source = readFileSync(join(__dirname, '..', 'lua', `${name}.lua`), 'utf8');
    this.sha = createHash('sha1').update(this.source).digest('hex');
  }

  async run(client: ScriptClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      return client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}
