import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import { checkRequestSchema, type CheckRequest, type CheckResult } from '@tollgate/domain';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { Access } from '../../common/access.decorator';
import { type Caller, CurrentCaller } from '../../common/caller';
import { ZodPipe } from '../../common/zod.pipe';
import { CheckQuota } from './use-cases/check-quota.use-case';

@ApiTags('enforcement')
@ApiBearerAuth()
@Controller('v1')
export class CheckController {
  constructor(private readonly checkQuota: CheckQuota) {}

  /**
   * May this request of this tenant pass, at this cost? Always 200 with a decision (a denial is
   * `allowed: false`); the rate-limit headers are in the body for the service to copy, and on this response.
   */
  @Post('check')
  @HttpCode(200)
  @Access('service')
  @ApiBody({
    schema: {
      ...(z.toJSONSchema(checkRequestSchema, { io: 'input' }) as object),
      example: { tenant: 'acme', endpoint: 'POST /v1/messages', subject: 'user-42', cost: 1 },
    },
  })
  async check(
    @CurrentCaller() caller: Caller,
    @Body(new ZodPipe(checkRequestSchema)) body: CheckRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CheckResult> {
    const result = await this.checkQuota.execute({ tenants: caller.kind === 'service' ? caller.tenants : [] }, body);
    void reply.headers(result.headers);
    return result;
  }
}
