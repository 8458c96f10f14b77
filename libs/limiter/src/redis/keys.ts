import { createHash } from 'node:crypto';

/**
 * The one place that names the limiter's Redis keys. Every key of one decision lives in the tenant's hash
 * tag (`tg:{<tenantId>}:…`) so that a Redis Cluster keeps them in one slot. Subjects are user input: they
 * are hashed, never written raw into a key name.
 */
export const limiterKeys = {
  fixedWindow(tenantId: string, limitName: string, windowS: number, subject: string | undefined): string {
    return `${tenantTag(tenantId)}:fw:${limitName}:${windowS}:${subjectHash(subject)}`;
  },
};

export function tenantTag(tenantId: string): string {
  return `tg:{${tenantId}}`;
}

/** 96 bits of SHA-256: collision-free in practice, short in memory. `-` stands for "the whole tenant". */
export function subjectHash(subject: string | undefined): string {
  if (subject === undefined) return '-';
  return createHash('sha256').update(subject).digest('base64url').slice(0, 16);
}
