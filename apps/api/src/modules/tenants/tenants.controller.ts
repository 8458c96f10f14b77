import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiQuery, ApiTags } from '@nestjs/swagger';
import { slug } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { z } from 'zod';
import { Access } from '../../common/access.decorator';
import { ZodPipe } from '../../common/zod.pipe';
import { PRISMA } from '../../infra/infra.module';

const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** The slug of the last tenant of the previous page. */
  cursor: slug.optional(),
});

export interface TenantView {
  id: string;
  slug: string;
  name: string;
  status: 'active' | 'suspended';
  timeZone: string;
  plan: { id: string; slug: string; name: string };
}

@ApiTags('tenants')
@ApiBearerAuth()
@Controller('v1/admin/tenants')
export class TenantsController {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** Tenants ordered by slug, a page at a time (`nextCursor` is null on the last page). */
  @Get()
  @Access('operator')
  @ApiQuery({ name: 'limit', required: false, example: 50 })
  @ApiQuery({ name: 'cursor', required: false })
  async list(@Query(new ZodPipe(listQuery)) query: z.infer<typeof listQuery>): Promise<{ items: TenantView[]; nextCursor: string | null }> {
    const rows = await this.prisma.tenant.findMany({
      where: query.cursor ? { slug: { gt: query.cursor } } : {},
      orderBy: { slug: 'asc' },
      take: query.limit + 1,
      include: { plan: { select: { id: true, slug: true, name: true } } },
    });
    const page = rows.slice(0, query.limit);
    return {
      items: page.map((t) => ({ id: t.id, slug: t.slug, name: t.name, status: t.status, timeZone: t.timeZone, plan: t.plan })),
      nextCursor: rows.length > query.limit ? (page.at(-1)?.slug ?? null) : null,
    };
  }
}
