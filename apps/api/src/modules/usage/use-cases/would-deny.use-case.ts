import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type WouldDeny } from '@tollgate/domain';
import { bucketStart, COUNTED_KEY, DENIAL_SAMPLES_KEPT, readDenialSamples, type StoredDenialSample, type UsageReader } from '@tollgate/usage';
import type { Redis } from 'ioredis';
import { REDIS } from '../../../infra/infra.module';
import type { WouldDenyQuery } from '../dto/usage.schemas';
import { USAGE_READER, UsageNames, UsageRead } from './usage.use-cases';

/**
 * The tenants whose samples are read: those with the most would-denies. Each is a read of up to DENIAL_SAMPLES_KEPT
 * stream entries, so a plan's policy over thousands of tenants names the subjects of the tenants that count most.
 */
export const WOULD_DENY_TENANTS_SAMPLED = 20;

/**
 * What enforcing an endpoint policy in shadow mode would have refused over a range: the exact count from the
 * rollups (per tenant, to know whose samples to read), then the subjects of the sampled would-denies of this policy
 * in the range, most samples first. The samples are read over the time the count covers: from the start of the first
 * bucket it reads (an hour's rows hold the whole hour) up to `COUNTED_KEY` (a sample is written at once, its count
 * reaches the rollup seconds later), so that no subject is sampled more often than the count says.
 */
@Injectable()
export class WouldDenyUseCase extends UsageRead {
  constructor(names: UsageNames, @Inject(USAGE_READER) reader: UsageReader, @Inject(REDIS) private readonly redis: Redis) {
    super(names, reader);
  }

  async execute(query: WouldDenyQuery): Promise<WouldDeny> {
    const scope = { kind: 'operator' } as const;
    const policy = await this.names.policy(query.policy, scope, null);
    const { from, to, step, said } = this.names.range(query);

    const perTenant = new Map<string, number>();
    let shadowDenied = 0;
    for await (const row of this.reader.rows({ policyId: policy.id, result: 'shadow_denied' }, from, to, step, 'UTC')) {
      shadowDenied += row.decisions;
      if (row.tenantId !== null) perTenant.set(row.tenantId, (perTenant.get(row.tenantId) ?? 0) + row.decisions);
    }
    const sampledTenants = [...perTenant]
      .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
      .slice(0, WOULD_DENY_TENANTS_SAMPLED)
      .map(([id]) => id);

    let samples: StoredDenialSample[][];
    let counted: string | null;
    try {
      [counted, samples] = await Promise.all([this.redis.get(COUNTED_KEY), Promise.all(sampledTenants.map((id) => readDenialSamples(this.redis, id, DENIAL_SAMPLES_KEPT)))]);
    } catch (err) {
      throw new AppError(ErrorCode.REDIS_UNAVAILABLE, 'the would-deny samples are in Redis, which did not answer; retry later', undefined, { cause: err });
    }

    const countedFrom = bucketStart(from, step);
    // Nothing rolled up yet (no worker has run against this Redis): no sample is covered by a count.
    const countedMs = counted === null ? countedFrom.getTime() : Math.min(Number(counted), to.getTime());
    const countedTo = new Date(Math.max(countedMs, countedFrom.getTime()));
    // Keyed by tenant and subject: the same subject name of two tenants is two subjects.
    const subjects = new Map<string, { tenantId: string; subject: string; samples: number; lastAt: Date }>();
    sampledTenants.forEach((tenantId, i) => {
      for (const s of samples[i]!) {
        if (s.result !== 'shadow_denied' || s.policyId !== policy.id || s.at < countedFrom || s.at >= countedTo) continue;
        const key = JSON.stringify([tenantId, s.subject]);
        const seen = subjects.get(key);
        if (seen) {
          seen.samples += 1;
          if (s.at > seen.lastAt) seen.lastAt = s.at;
        } else subjects.set(key, { tenantId, subject: s.subject, samples: 1, lastAt: s.at });
      }
    });
    const tenants = await this.names.tenants(sampledTenants);
    const listed = [...subjects.values()]
      .sort((a, b) => b.samples - a.samples || b.lastAt.getTime() - a.lastAt.getTime() || a.subject.localeCompare(b.subject))
      .slice(0, query.top);

    return {
      policy,
      ...said,
      countedFrom: countedFrom.toISOString(),
      countedTo: countedTo.toISOString(),
      shadowDenied,
      tenants: perTenant.size,
      sampled: true,
      tenantsSampled: sampledTenants.length,
      subjects: listed.map((s) => ({ subject: s.subject, tenant: tenants.get(s.tenantId) ?? null, samples: s.samples, lastAt: s.lastAt.toISOString() })),
    };
  }
}
