import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The subset of an ioredis client (single node or cluster) that scripts need. */
export interface ScriptClient {
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

const INCLUDE = /^--- @include "([a-z0-9_-]+)"[ \t]*$/gm;

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

  /**
   * Reads `<dir>/<name>.lua` (scripts are files, copied next to the compiled code by the build) and
   * assembles its includes: each `--- @include "<snippet>"` line becomes `<dir>/includes/<snippet>.lua`.
   */
  static load(dir: string, name: string): LuaScript {
    return new LuaScript(name, assembleLua(dir, name));
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

/**
 * The source of `<dir>/<name>.lua` with every include replaced by the snippet's text. A snippet may include
 * others; each one lands once, where it is first included (a second include of it is dropped).
 */
export function assembleLua(dir: string, name: string): string {
  const included = new Set<string>();
  const expand = (source: string): string =>
    source.replace(INCLUDE, (_line, snippet: string) => {
      if (included.has(snippet)) return '';
      included.add(snippet);
      return expand(readFileSync(join(dir, 'includes', `${snippet}.lua`), 'utf8')).trimEnd();
    });
  return expand(readFileSync(join(dir, `${name}.lua`), 'utf8'));
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}
