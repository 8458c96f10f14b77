import { Prisma, type PrismaClient } from '@tollgate/db';
import type { UsageStep } from './range';
import type { UsageRouteEntry, UsageRoutesQuery } from './store';

const TABLES: ReadonlyMap<UsageStep, Prisma.Sql> = new Map([
  ['minute', Prisma.raw('usage_route_minute')],
  ['hour', Prisma.raw('usage_route_hour')],
  ['day', Prisma.raw('usage_route_day')],
]);

/**
 * `UsageReader.routes` on the route rollups (`usage_route_minute`, `usage_route_hour`, `usage_route_day`, the table of
 * the query's step): the routes that lead a range by 429 rate or by decisions, then the limits that denied each of them
 * (route × limit), in two statements with their values as parameters. `range` selects the rows (alias `u`) of the
 * buckets that overlap the range, as every other usage read selects them (postgres-reader.ts).
 */
export async function readRoutes(prisma: PrismaClient, query: UsageRoutesQuery, range: Prisma.Sql): Promise<UsageRouteEntry[]> {
  const source = TABLES.get(query.step)!;
  const tenant = query.tenantId === undefined ? Prisma.sql`true` : Prisma.sql`u.tenant_id = ${query.tenantId}::uuid`;
  const rated = query.order === 'deny_rate';
  const rows = await prisma.$queryRaw<RouteRow[]>`
    with r as (
      select u.route, sum(u.decisions) as decisions,
        coalesce(sum(u.decisions) filter (where u.result = 'allowed'), 0) as allowed,
        coalesce(sum(u.decisions) filter (where u.result = 'denied'), 0) as denied,
        coalesce(sum(u.decisions) filter (where u.result = 'shadow_denied'), 0) as shadow_denied,
        coalesce(sum(u.decisions) filter (where u.result in ('degraded_allowed', 'degraded_denied')), 0) as degraded,
        coalesce(sum(u.decisions) filter (where u.result = 'refused'), 0) as refused
      from ${source} u where ${range} and ${tenant}
      group by u.route
    )
    select r.route, r.decisions::bigint, r.allowed::bigint, r.denied::bigint, r.shadow_denied::bigint, r.degraded::bigint, r.refused::bigint,
      case when r.decisions > 0 then r.denied::float8 / r.decisions::float8 else 0 end as deny_rate
    from r
    where r.decisions > 0 and (${!rated} or (r.denied > 0 and r.decisions >= ${query.minDecisions}))
    order by ${rated ? Prisma.sql`deny_rate desc, r.denied desc` : Prisma.sql`r.decisions desc`}, r.route
    limit ${query.top}`;
  if (rows.length === 0) return [];
  const routes = rows.map((r) => r.route);
  const limits = await prisma.$queryRaw<{ route: string; name: string; denied: bigint; shadow_denied: bigint }[]>`
    select u.route, u.reason as name,
      coalesce(sum(u.decisions) filter (where u.result = 'denied'), 0)::bigint as denied,
      coalesce(sum(u.decisions) filter (where u.result = 'shadow_denied'), 0)::bigint as shadow_denied
    from ${source} u
    where ${range} and ${tenant}
      and u.route = any(${routes}::text[]) and u.result in ('denied', 'shadow_denied')
    group by u.route, u.reason
    order by sum(u.decisions) desc, u.reason`;
  const byRoute = new Map<string, UsageRouteEntry['limits']>();
  for (const l of limits) {
    const list = byRoute.get(l.route) ?? [];
    list.push({ name: l.name, denied: Number(l.denied), shadowDenied: Number(l.shadow_denied) });
    byRoute.set(l.route, list);
  }
  return rows.map((r) => ({
    route: r.route,
    decisions: Number(r.decisions),
    allowed: Number(r.allowed),
    denied: Number(r.denied),
    shadowDenied: Number(r.shadow_denied),
    degraded: Number(r.degraded),
    refused: Number(r.refused),
    denyRate: Number(r.deny_rate),
    limits: byRoute.get(r.route) ?? [],
  }));
}

interface RouteRow {
  route: string;
  decisions: bigint;
  allowed: bigint;
  denied: bigint;
  shadow_denied: bigint;
  degraded: bigint;
  refused: bigint;
  deny_rate: number;
}
