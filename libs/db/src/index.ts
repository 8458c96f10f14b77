import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client';

export * from './generated/prisma/client';

/**
 * A connection that sends a query only once the one before it has answered. Inside a transaction (one connection)
 * Prisma reads the relations a query includes side by side, which `pg` queues on the connection and warns of on
 * every run (it is to be refused in pg 9): here they wait their turn in the same order instead, as they did in
 * pg's queue. A query with a callback (none of Prisma's) goes to pg as it is.
 */
export class OneQueryAtATimeClient extends pg.Client {
  private previous: Promise<unknown> = Promise.resolve();

  override query(...args: unknown[]): never {
    const send = () => (super.query as (...a: unknown[]) => unknown).apply(this, args);
    if (args.some((arg) => typeof arg === 'function')) return send() as never;
    const answer = this.previous.then(send);
    this.previous = answer.catch(() => undefined);
    return answer as never;
  }
}

/** A Prisma client on the pg driver adapter (no native query engine). */
export function createPrismaClient(databaseUrl: string, options: { poolSize?: number; connectTimeoutMs?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 2_000,
    Client: OneQueryAtATimeClient,
  });
  return new PrismaClient({ adapter });
}

/**
 * How a secret (an API key, a session token) is stored and looked up: the hex SHA-256 of the whole secret, never the
 * secret. The one definition: the API, the rule set (which carries keys' hashes), the seed and the tests use it.
 */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
