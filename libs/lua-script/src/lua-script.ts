import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The subset of an ioredis client (single node or cluster) that scripts need. */
export interface ScriptClient {
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** A client's pipeline, as much of it as `runAcknowledged` needs (ioredis's `pipeline()`, one server or a cluster). */
export interface AckPipelineClient {
  pipeline(): {
    evalsha(sha: string, numKeys: number, ...args: (string | number)[]): unknown;
    eval(script: string, numKeys: number, ...args: (string | number)[]): unknown;
    wait(replicas: number, timeoutMs: number): unknown;
    exec(): Promise<[Error | null, unknown][] | null>;
  };
}

/** The script's reply and how many replicas acknowledged its writes within the timeout (`WAIT`). */
export interface AcknowledgedReply {
  reply: unknown;
  replicas: number;
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

  /**
   * Runs the script and then `WAIT replicas timeoutMs` in one pipeline on `client`'s connection (a cluster sends both
   * to the node of `keys`): the reply, and how many replicas hold the script's writes. `WAIT` blocks its connection,
   * so `client` should be one that only such calls use.
   */
  async runAcknowledged(client: AckPipelineClient, keys: readonly string[], args: readonly (string | number)[], replicas: number, timeoutMs: number): Promise<AcknowledgedReply> {
    const once = async (byEval: boolean) => {
      const pipeline = client.pipeline();
      if (byEval) pipeline.eval(this.source, keys.length, ...keys, ...args);
      else pipeline.evalsha(this.sha, keys.length, ...keys, ...args);
      pipeline.wait(replicas, timeoutMs);
      const results = await execPipeline(pipeline);
      const [script, wait] = results;
      if (script?.[0]) throw script[0];
      if (wait?.[0]) throw wait[0];
      return { reply: script?.[1], replicas: Number(wait?.[1] ?? 0) };
    };
    try {
      return await once(false);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      return once(true);
    }
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

/** A pipeline's results, or an error when it has none (the connection closed before it ran). */
async function execPipeline(pipeline: ReturnType<AckPipelineClient['pipeline']>): Promise<[Error | null, unknown][]> {
  const results = await pipeline.exec();
  if (!results) throw new Error('the pipeline ran no command');
  return results;
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}
