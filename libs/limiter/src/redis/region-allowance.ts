import { join } from 'node:path';
import { LuaScript, type ScriptClient } from '@tollgate/lua-script';
import { allowanceKey, type GlobalWindow } from './keys';
import { replyNumbers } from './protocol';

/** lua/region-allowance.lua: what the coordinator runs on each region's Redis. */
export const regionAllowanceScript = LuaScript.load(join(__dirname, '..', 'lua'), 'region-allowance');

/** A window in one region after a call of lua/region-allowance.lua. */
export interface RegionWindow {
  /** Units the region admitted in the window. */
  count: number;
  /** What it may admit in the window (its share of the limit until the coordinator moved units). */
  allowance: number;
  /** Consumes and leases the window denied there. */
  denied: number;
  /** How many calls moved units of the allowance: a release or a grant names the one it read. */
  generation: number;
  /** Units released (release) or granted (grant) by this call; 0 for a read or a stale call. */
  moved: number;
}

/**
 * What the coordinator asks of a region's allowance of a window: `read` it; `release` (lower it to the larger of `to`
 * and the window's count) or `grant` (raise it by `units`, up to the limit), each only while the allowance is still of
 * the `generation` the coordinator read (else the call is stale and changes nothing).
 */
export type AllowanceCall = { operation: 'read' } | { operation: 'release'; to: number; generation: number } | { operation: 'grant'; units: number; generation: number };

/**
 * One call of lua/region-allowance.lua on `client`, a region's Redis, for `window`, whose share of the limit there is
 * `share`: atomic with the region's decisions (docs/adr/0025-one-quota-across-regions.md).
 */
export async function regionWindow(client: ScriptClient, window: GlobalWindow, share: number, call: AllowanceCall): Promise<RegionWindow> {
  const amount = call.operation === 'release' ? call.to : call.operation === 'grant' ? call.units : '';
  const generation = call.operation === 'read' ? '' : call.generation;
  const args = [call.operation, window.start, window.end, window.limit, share, amount, generation];
  const reply = replyNumbers(await regionAllowanceScript.run(client, [window.ruleKey, allowanceKey(window.ruleKey)], args));
  if (reply.length !== 5) throw new Error(`region-allowance.lua: unexpected reply ${JSON.stringify(reply)}`);
  const [count, allowance, denied, gen, moved] = reply as [number, number, number, number, number];
  return { count, allowance, denied, generation: gen, moved };
}
