import { Injectable } from '@nestjs/common';
import type { DegradedUsageView } from '@tollgate/domain';
import type { DegradedQuery } from '../dto/usage.schemas';
import { UsageRead } from './usage.use-cases';

/**
 * The drill-down of the overview's Degraded tile: the decisions failure modes made over a range because Redis did not
 * decide, by cause (the reason usage keeps for them, `<mode>:<cause>`), per bucket, and the tenants with the most.
 */
@Injectable()
export class DegradedUsageUseCase extends UsageRead {
  async execute(query: DegradedQuery): Promise<DegradedUsageView> {
    const { from, to, step, said } = this.names.range(query);
    const read = await this.reader.degraded(from, to, step, query.top);
    const names = await this.names.tenants(read.tenants.map((t) => t.tenantId));
    const byCause = { deadline: 0, circuit_open: 0, redis_error: 0, replica: 0, unknown: 0 };
    let decisions = 0;
    for (const point of read.points) {
      decisions += point.decisions;
      for (const cause of Object.keys(byCause) as (keyof typeof byCause)[]) byCause[cause] += point.byCause[cause];
    }
    return {
      ...said,
      decisions,
      byCause,
      points: read.points.map((p) => ({ at: p.at.toISOString(), decisions: p.decisions, byCause: p.byCause })),
      tenants: read.tenants.map((t) => ({ tenant: (t.tenantId !== null && names.get(t.tenantId)) || null, decisions: t.decisions, byCause: t.byCause })),
    };
  }
}
