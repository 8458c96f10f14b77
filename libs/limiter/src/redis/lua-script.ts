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
  readonly sha: string;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Reads `<dir>/<name>.lua` (scripts are files, copied next to the compiled code by the build). */
  static load(dir: string, name: string): LuaScript {
    return new LuaScript(name, readFileSync(join(dir, `${name}.lua`), 'utf8'));
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
