import type {
  alertPageSchema,
  auditPageSchema,
  keyAnswerSchema,
  keyRotationAnswerSchema,
  keySecretAnswerSchema,
  limitAnswerSchema,
  loginAnswerSchema,
  overrideAnswerSchema,
  OwnLimits,
  planAnswerSchema,
  policyAnswerSchema,
  policyPageSchema,
  restoreAnswerSchema,
  restorePreviewSchema,
  ruleSetDiffSchema,
  ruleSetPageSchema,
  ruleSetVersionSchema,
  ruleVersionAnswerSchema,
  tenantAnswerSchema,
  tenantPageSchema,
  userPageSchema,
  webhookDeliveryPageSchema,
  webhookEndpointPageSchema,
  webhookSecretAnswerSchema,
  webhookSendAnswerSchema,
} from '@tollgate/domain';
import type { z } from 'zod';

/**
 * The dashboard's names for the API's answers. The shapes are the domain's (libs/domain/src/answers.ts), which
 * the API's views are typed by and api.ts parses every answer with: a changed answer fails the type check here.
 */
export {
  FAILURE_MODES,
  KEY_KINDS,
  POLICY_METHODS,
  POLICY_MODES,
  REGION_SCOPES,
  SUBJECT_SCOPES,
  TENANT_STATUSES,
  USER_ROLES,
  type KeyKind,
  type LimitsInForce,
  type LiveLimit,
  type OwnLimits,
  type OwnTenant,
  type AuditEntryView as AuditEntry,
  type RuleSetChange,
  type RuleSetSummary,
  type RuleSetVersionSummary,
  type UserRole,
  ALERT_KINDS,
  ALERT_STATES,
  EVENT_TYPES,
  PLATFORM_ALERT_KINDS,
  type AlertKind,
  type AlertState,
  TENANT_EVENT_TYPES,
  WEBHOOK_DELIVERY_STATUSES,
  type EventType,
  type UsageSeries,
  type DenialSamples,
  type UsageTop,
  type UsageRoutes,
  type UsageSummary,
  type LimitsUsed,
  type PlansAtLimit,
  type WouldDeny,
  type DegradedUsageView as DegradedUsage,
} from '@tollgate/domain';

// The answers' own types, by the names the dashboard's pages know them by: a signed-in `User`, an operator's view of
// an `Account`, a plan's `PlanLimit`, a tenant's `LimitOverride`, a `LimitInForce` as the rule set holds it, an `ApiKey`.
export type {
  AlertRuleView as AlertRule,
  AlertView as Alert,
  KeyCalls,
  KeyWithUsage as ApiKey,
  LimitSpec as LimitInForce,
  LimitView as PlanLimit,
  OverrideView as LimitOverride,
  PlanView as Plan,
  PolicyView as Policy,
  SessionUser as User,
  TenantView as Tenant,
  TenantCapUsage,
  TenantCapsUsage,
  UserView as Account,
  WebhookDeliveryView as WebhookDelivery,
  WebhookEndpointView as WebhookEndpoint,
} from '@tollgate/domain';

export type PolicyInForce = OwnLimits['policies'][number];
/** A new or rotated key: `key` is its secret, in this answer only. */
export type KeySecretResponse = z.infer<typeof keySecretAnswerSchema> | z.infer<typeof keyRotationAnswerSchema>;
export type AccountPage = z.infer<typeof userPageSchema>;
export type LoginResponse = z.infer<typeof loginAnswerSchema>;
export type UpdateLimitResponse = z.infer<typeof limitAnswerSchema>;
export type RuleVersionResponse = z.infer<typeof ruleVersionAnswerSchema>;
export type PlanResponse = z.infer<typeof planAnswerSchema>;
export type TenantPage = z.infer<typeof tenantPageSchema>;
export type TenantResponse = z.infer<typeof tenantAnswerSchema>;
export type OverrideResponse = z.infer<typeof overrideAnswerSchema>;
export type PolicyPage = z.infer<typeof policyPageSchema>;
export type PolicyResponse = z.infer<typeof policyAnswerSchema>;
export type KeyResponse = z.infer<typeof keyAnswerSchema>;
/** Rule set versions, newest first. */
export type RuleSetPage = z.infer<typeof ruleSetPageSchema>;
export type RuleSetVersion = z.infer<typeof ruleSetVersionSchema>;
export type RuleSetDiff = z.infer<typeof ruleSetDiffSchema>;
export type RestoreRuleSetResponse = z.infer<typeof restoreAnswerSchema>;
export type RestorePreview = z.infer<typeof restorePreviewSchema>;
export type AuditPage = z.infer<typeof auditPageSchema>;
export type WebhookEndpointPage = z.infer<typeof webhookEndpointPageSchema>;
export type WebhookDeliveryPage = z.infer<typeof webhookDeliveryPageSchema>;
/** A new or rotated webhook endpoint: `secret` (`whsec_…`) is in this answer only. */
export type WebhookSecretResponse = z.infer<typeof webhookSecretAnswerSchema>;
export type WebhookSendResponse = z.infer<typeof webhookSendAnswerSchema>;
export type AlertPage = z.infer<typeof alertPageSchema>;
