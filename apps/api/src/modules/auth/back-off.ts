import { ExpiringLru, subjectHash, tenantTag } from '@tollgate/limiter';
import { LuaScript, type ScriptClient } from '@tollgate/lua-script';

/**
 * Exponential back-off of one subject's attempts (a sign-in per account and address): the first
 * `freeAttempts - 1` pass at once; from the `freeAttempts`-th on, each attempt makes the next one wait, `baseMs`
 * after that one, then twice as long after each further attempt, at most `maxMs`. A success `forgive`s the
 * subject; so does `keepMs` without an attempt. Every attempt is counted when it starts (a wrong password is only
 * known later): many attempts at once cannot slip in before the first failure is recorded.
 */
export interface BackOffPolicy {
  freeAttempts: number;
  baseMs: number;
  maxMs: number;
  keepMs: number;
}

/** `allowed`: go on; `delayMs` is then the wait this attempt imposes on the next. Denied: `retryAfterMs` to wait. */
export type BackOffAttempt = { allowed: true; delayMs: number } | { allowed: false; retryAfterMs: number };

export interface BackOffStore {
  attempt(subject: string, policy: BackOffPolicy): Promise<BackOffAttempt>;
  forgive(subject: string): Promise<void>;
}

/** The wait after the `n`-th attempt in a row. */
export function delayAfter(n: number, policy: BackOffPolicy): number {
  if (n < policy.freeAttempts) return 0;
  return Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(n - policy.freeAttempts, 52));
}

interface State {
  /** Attempts in a row. */
  n: number;
  /** No attempt before this time (epoch ms). */
  until: number;
}

/** The same rules in this process's memory (Redis outages), bounded: the least recently used subject goes first. */
export class MemoryBackOff implements BackOffStore {
  private readonly states: ExpiringLru<State>;

  constructor(
    maxEntries = 100_000,
    private readonly now: () => number = Date.now,
  ) {
    this.states = new ExpiringLru(maxEntries);
  }

  async attempt(subject: string, policy: BackOffPolicy): Promise<BackOffAttempt> {
    const now = this.now();
    const state = this.states.get(subject, now) ?? { n: 0, until: 0 };
    if (state.until > now) return { allowed: false, retryAfterMs: state.until - now };
    const n = state.n + 1;
    const delayMs = delayAfter(n, policy);
    this.states.set(subject, { n, until: now + delayMs }, delayMs + policy.keepMs, now);
    return { allowed: true, delayMs };
  }

  async forgive(subject: string): Promise<void> {
    this.states.set(subject, { n: 0, until: 0 }, 0, 0);
  }
}

// The Lua twin of MemoryBackOff.attempt, on Redis's clock: one script call, so concurrent attempts are counted one
// after the other. The state is a hash { n, until }; numbers go out with %.0f (Lua would print 1.8e+12).
const ATTEMPT = new LuaScript(
  'back-off-attempt',
  `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'n', 'until')
local n = tonumber(state[1]) or 0
local blocked = tonumber(state[2]) or 0
if blocked > now then return {0, blocked - now} end
local free, base, max, keep = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
n = n + 1
local delay = 0
if n >= free then delay = math.min(max, base * 2 ^ math.min(n - free, 52)) end
redis.call('HSET', KEYS[1], 'n', string.format('%.0f', n), 'until', string.format('%.0f', now + delay))
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', delay + keep))
return {1, delay}`,
);

/** The back-off on Redis, shared by every API node. Keys: `tg:{<namespace tag>}:bo:<name>:<subject hash>`. */
export class RedisBackOff implements BackOffStore {
  private readonly prefix: string;

  constructor(
    private readonly redis: ScriptClient & { del(key: string): Promise<number> },
    namespace: string,
    name: string,
  ) {
    this.prefix = `tg:{${tenantTag(namespace)}}:bo:${name}:`;
  }

  async attempt(subject: string, policy: BackOffPolicy): Promise<BackOffAttempt> {
    const args = [policy.freeAttempts, policy.baseMs, policy.maxMs, policy.keepMs];
    const [allowed, ms] = (await ATTEMPT.run(this.redis, [this.keyOf(subject)], args)) as [number, number];
    return allowed === 1 ? { allowed: true, delayMs: ms } : { allowed: false, retryAfterMs: ms };
  }

  async forgive(subject: string): Promise<void> {
    await this.redis.del(this.keyOf(subject));
  }

  private keyOf(subject: string): string {
    return this.prefix + subjectHash(subject);
  }
}
