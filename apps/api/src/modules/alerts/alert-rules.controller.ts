import { Body, Delete, HttpCode, Inject, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { type AlertSilence, alertSilenceSchema, alertRuleListSchema, alertRulePatchSchema, type AlertRulePatch, type AlertRuleView, alertRuleViewSchema, newAlertRuleSchema, type NewAlertRule } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { Access } from '../../common/access.decorator';
import { BearerController, OperatorRoute } from '../../common/route';
import { ApiNoContent } from '../../common/api-json-body';
import { actorOf } from '../../common/audit';
import { type Caller, CurrentCaller } from '../../common/caller';
import { found } from '../../common/found';
import { IdPipe } from '../../common/id.pipe';
import { errorResponse } from '../../common/openapi-errors';
import { ApiQueryOf } from '../../common/api-query';
import { ZodPipe } from '../../common/zod.pipe';
import { PRISMA } from '../../infra/infra.module';
import { toAlertRuleView } from './alert-views';
import { listAlertRulesQuery, type ListAlertRulesQuery } from './dto/alert.schemas';
import { SilenceAlertRuleUseCase } from './use-cases/alert-attention.use-cases';
import { CreateAlertRuleUseCase, DeleteAlertRuleUseCase, UpdateAlertRuleUseCase } from './use-cases/alert-rules.use-cases';

/** The most alert rules there can be in one answer: rules are an operator's handful, not a tenant's thousands. */
const MAX_RULES = 1000;

/**
 * What operators ask to be alerted about (docs/adr/0018-alerts.md): quota thresholds, 429 rates and the platform's
 * degraded decisions, for a plan's tenants, one tenant or everything. The worker evaluates them.
 */
@BearerController('alerts', 'v1/admin/alert-rules')
export class AlertRulesController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly createRule: CreateAlertRuleUseCase,
    private readonly updateRule: UpdateAlertRuleUseCase,
    private readonly deleteRule: DeleteAlertRuleUseCase,
    private readonly silences: SilenceAlertRuleUseCase,
  ) {}

  /** Every rule by name (at most 1,000), filtered by kind, plan or tenant. */
  @OperatorRoute('GET', 'List alert rules', alertRuleListSchema)
  @ApiQueryOf(listAlertRulesQuery)
  async list(@Query(new ZodPipe(listAlertRulesQuery)) query: ListAlertRulesQuery): Promise<{ items: AlertRuleView[] }> {
    const rows = await this.prisma.alertRule.findMany({
      where: { ...(query.kind ? { kind: query.kind } : {}), ...(query.planId ? { planId: query.planId } : {}), ...(query.tenantId ? { tenantId: query.tenantId } : {}) },
      orderBy: { name: 'asc' },
      take: MAX_RULES,
    });
    return { items: rows.map((r) => toAlertRuleView(r)) };
  }

  @OperatorRoute('GET :ruleId', 'Get an alert rule', alertRuleViewSchema)
  async get(@Param('ruleId', IdPipe) ruleId: string): Promise<AlertRuleView> {
    return toAlertRuleView(found(await this.prisma.alertRule.findUnique({ where: { id: ruleId } }), 'alert rule'));
  }

  /** A new rule; one about a single tenant counts against its cap of alert rules (ALERT_RULES_PER_TENANT, or its own). */
  @OperatorRoute('POST', 'Create an alert rule', alertRuleViewSchema, {
    body: newAlertRuleSchema,
    example: { name: 'Starter tenants near their daily quota', kind: 'quota_threshold', planId: '00000000-0000-4000-8000-000000000000', params: { thresholds: [80, 100] } },
  })
  @ApiResponse({ status: 409, ...errorResponse(409, 'conflict: a rule of this name exists; cap_reached: the tenant has as many alert rules as its cap allows (an operator may raise it)') })
  create(@CurrentCaller() caller: Caller, @Body(new ZodPipe(newAlertRuleSchema)) input: NewAlertRule): Promise<AlertRuleView> {
    return this.createRule.execute(actorOf(caller), input);
  }

  /** Renames, enables or disables a rule, or replaces its params (validated for its kind; kind and scope never change). */
  @OperatorRoute('PATCH :ruleId', 'Update an alert rule', alertRuleViewSchema, { body: alertRulePatchSchema, example: { enabled: false } })
  update(@CurrentCaller() caller: Caller, @Param('ruleId', IdPipe) ruleId: string, @Body(new ZodPipe(alertRulePatchSchema)) patch: AlertRulePatch): Promise<AlertRuleView> {
    return this.updateRule.execute(actorOf(caller), ruleId, patch);
  }

  /** Deletes a rule; its alerts stay in the history without it. */
  @Delete(':ruleId')
  @ApiOperation({ summary: 'Delete an alert rule' })
  @HttpCode(204)
  @Access('operator')
  @ApiNoContent('deleted')
  async remove(@CurrentCaller() caller: Caller, @Param('ruleId', IdPipe) ruleId: string): Promise<void> {
    await this.deleteRule.execute(actorOf(caller), ruleId);
  }

  /**
   * Silences a rule until a time within the next week, with a reason (audited): its alerts are still recorded and
   * shown, and notify nothing before then. A new silence replaces the one in force.
   */
  @OperatorRoute('PUT :ruleId/silence', 'Silence an alert rule', alertRuleViewSchema, {
    body: alertSilenceSchema,
    example: { until: '2026-12-05T18:00:00Z', reason: 'load test of acme until 18:00' },
  })
  silence(@CurrentCaller() caller: Caller, @Param('ruleId', IdPipe) ruleId: string, @Body(new ZodPipe(alertSilenceSchema)) input: AlertSilence): Promise<AlertRuleView> {
    return this.silences.silence(actorOf(caller), ruleId, input);
  }

  /** Ends a rule's silence now (audited); a rule without one is answered as it is. */
  @OperatorRoute('DELETE :ruleId/silence', "End an alert rule's silence", alertRuleViewSchema)
  unsilence(@CurrentCaller() caller: Caller, @Param('ruleId', IdPipe) ruleId: string): Promise<AlertRuleView> {
    return this.silences.unsilence(actorOf(caller), ruleId);
  }
}
