import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { AppError, ErrorCode } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { Access } from '../../common/access.decorator';
import { PRISMA } from '../../infra/infra.module';

@ApiTags('rule sets')
@ApiBearerAuth()
@Controller('v1/admin/rule-sets')
export class RuleSetsController {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** The newest committed rule set version. */
  @Get('current')
  @Access('operator')
  async current(): Promise<{ version: number; createdAt: string; author: string }> {
    const row = await this.prisma.ruleSetVersion.findFirst({
      orderBy: { version: 'desc' },
      select: { version: true, createdAt: true, author: true },
    });
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, 'no rule set version yet');
    return { version: row.version, createdAt: row.createdAt.toISOString(), author: row.author };
  }
}
