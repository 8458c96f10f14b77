import { z } from 'zod';
import type { LimitState } from './limits';
import { safeText, slug } from './text';

export const MAX_COST = 1_000_000;

/** Body of `POST /v1/check`. Unknown fields are refused so that typos never pass silently. */
export const checkRequestSchema = z.strictObject({
  tenant: slug,
  endpoint: safeText,
  subject: safeText.optional(),
  cost: z.int('must be a whole number').min(1, 'must be at least 1').max(MAX_COST, `must be at most ${MAX_COST}`).default(1),
});
export type CheckRequest = z.infer<typeof checkRequestSchema>;

export type EnforcementMode = 'enforce';

/** A decision: a denial is a value (`allowed: false`), never an error. */
export interface CheckResult {
  allowed: boolean;
  mode: EnforcementMode;
  retryAfterMs: number;
  /** Leaky bucket shaper: the request is admitted but should proceed after this many ms. */
  delayMs?: number;
  ruleVersion: number;
  limits: LimitState[];
  headers: Record<string, string>;
  /** Why a request is denied without counting, e.g. `tenant_suspended`. */
  reason?: string;
}
