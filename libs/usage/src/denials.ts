import type { Cluster, Redis } from 'ioredis';
import { DENIAL_SAMPLES_KEPT, denialsKey, NO_TENANT } from './keys';
import { NO_POLICY } from './fields';

/**
 * One entry of a tenant's denial sample stream (keys.ts: `denialsKey`): a denial, or a policy in shadow mode that would
 * have denied. The API node writes it after answering, at most a few a second per tenant (a sample: the counts are in
 * the usage hashes); its id is Redis's time in ms, so entries read newest first are in order of time.
 */
export interface DenialSample {
  /** The endpoint policy that matched, or null. */
  policyId: string | null;
  /** The checked request's endpoint (`GET /v1/items`). */
  endpoint: string;
  /** Who the request was for, as the check named it ('' without one). */
  subject: string;
  /** The name of the limit that refused. */
  limit: string;
  /** What that limit had left. */
  remaining: number;
  result: 'denied' | 'shadow_denied';
}

export interface StoredDenialSample extends DenialSample {
  /** The stream entry's id. */
  id: string;
  /** When it was written (the id's time). */
  at: Date;
}

/** The fields of a sample as `XADD` takes them: the contract between the node that writes and whoever reads. */
export function denialFields(sample: DenialSample): string[] {
  return [
    'policy', sample.policyId ?? NO_POLICY,
    'endpoint', sample.endpoint,
    'subject', sample.subject,
    'limit', sample.limit,
    'remaining', String(sample.remaining),
    'result', sample.result,
  ];
}

/** The newest `count` samples of the tenant (at most what the stream keeps), newest first. */
export async function readDenialSamples(redis: Redis | Cluster, tenantId: string, count: number): Promise<StoredDenialSample[]> {
  if (tenantId === NO_TENANT) return [];
  const entries = await redis.xrevrange(denialsKey(tenantId), '+', '-', 'COUNT', Math.min(count, DENIAL_SAMPLES_KEPT));
  const samples: StoredDenialSample[] = [];
  for (const [id, flat] of entries) {
    const sample = sampleOf(id, flat);
    if (sample) samples.push(sample);
  }
  return samples;
}

/** An entry as a sample; null for one that is not of the form (written by something else). */
function sampleOf(id: string, flat: readonly string[]): StoredDenialSample | null {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
  const ms = Number(id.split('-')[0]);
  const result = fields.get('result');
  const remaining = Number(fields.get('remaining'));
  if (!Number.isSafeInteger(ms) || (result !== 'denied' && result !== 'shadow_denied') || !Number.isFinite(remaining)) return null;
  const policy = fields.get('policy');
  return {
    id,
    at: new Date(ms),
    policyId: policy === undefined || policy === NO_POLICY || policy === '' ? null : policy,
    endpoint: fields.get('endpoint') ?? '',
    subject: fields.get('subject') ?? '',
    limit: fields.get('limit') ?? '',
    remaining,
    result,
  };
}
