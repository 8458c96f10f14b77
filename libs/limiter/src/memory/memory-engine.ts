import { systemClock } from '../clock';
import type { Clock, Decision, Lease, LeaseRequest, Limiter, LimitRequest } from '../contract';
import { evaluate } from '../evaluate';
import { keyPrefixOf, subjectOf, toDecision, validateRequest } from '../prepared-rules';
import { subjectHash } from '../redis/keys';
import type { Operation } from '../rules';
import { ExpiringLru } from './lru';

export interface MemoryEngineOptions {
  /** Defaults to `Date.now`. */
  clock?: Clock;
  /** Keys kept at most (least recently used evicted first); default 100,000. */
  maxEntries?: number;
}

/**
 * The limiter in process memory: the same algorithms, contract and numbers as the Redis engine, for tests,
 * the SDK's local limiter and the `local` failure mode. Each key expires when the Redis key would (its
 * state then reads as empty anyway); an evicted key forgets its usage, the price of bounded memory.
 */
export class MemoryEngine implements Limiter {
  private readonly clock: Clock;
  private readonly store: ExpiringLru<unknown>;

  constructor(options: MemoryEngineOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.store = new ExpiringLru(options.maxEntries ?? 100_000);
  }

  async consume(request: LimitRequest): Promise<Decision> {
    return this.run('consume', request, request.cost).decision;
  }

  async peek(request: LimitRequest): Promise<Decision> {
    return this.run('peek', request, request.cost).decision;
  }

  async refund(request: LimitRequest): Promise<Decision> {
    return this.run('refund', request, request.cost).decision;
  }

  async lease(request: LeaseRequest): Promise<Lease> {
    return this.run('lease', request, request.max);
  }

  /** Number of keys held (bounded by `maxEntries`). */
  get size(): number {
    return this.store.size;
  }

  private run(operation: Operation, request: Omit<LimitRequest, 'cost'>, amount: number): Lease {
    const rules = validateRequest(operation, request, amount);
    const now = Math.floor(this.clock.now());
    const { models, keyParts } = request.rules;
    const prefix = keyPrefixOf(request.rules, request.tenantId);
    const keys = keyParts.map((part, i) => prefix + part + subjectHash(subjectOf(request, i)));
    const evaluation = evaluate(operation, models, keys.map((key) => this.store.get(key, now)), amount, now, request.shadowFrom);
    evaluation.rules.forEach(({ view, write, numbers }, i) => {
      const key = keys[i];
      const model = models[i];
      if (!write || key === undefined || !model) return;
      const kept = model.store(view, numbers.resetMs);
      this.store.set(key, kept.value, kept.ttlMs, now);
    });
    const numbers = evaluation.rules.map((r) => r.numbers);
    return { granted: evaluation.granted, decision: toDecision(now, evaluation.allowed, rules, numbers) };
  }
}
