import { type CheckAnswer, type LimitState, mostRestrictive } from '@tollgate/domain';

/**
 * RateLimitResponse.Code and RateLimitResponse.RateLimit.Unit as rls.proto numbers them: the answer is encoded as it is
 * built, without a conversion of names (rls-server.ts, `encodeResponse`).
 */
export const RlsCode = { OK: 1, OVER_LIMIT: 2 } as const;
export type RlsCode = (typeof RlsCode)[keyof typeof RlsCode];
export const RlsUnit = { UNKNOWN: 0, SECOND: 1, MINUTE: 2, HOUR: 3, DAY: 4 } as const;
export type RlsUnit = (typeof RlsUnit)[keyof typeof RlsUnit];

/** google.protobuf.Value / Struct as protobufjs encodes plain objects (its own definitions: camelCase names). */
type StructValue = { stringValue: string } | { boolValue: boolean } | { numberValue: number };
export interface StructMessage {
  fields: Record<string, StructValue>;
}

export interface DescriptorStatusMessage {
  code: RlsCode;
  current_limit?: { name: string; requests_per_unit: number; unit: RlsUnit };
  limit_remaining: number;
  duration_until_reset?: { seconds: number; nanos: number };
}

export interface RateLimitResponseMessage {
  overall_code: RlsCode;
  statuses: DescriptorStatusMessage[];
  response_headers_to_add: { key: string; value: string }[];
  dynamic_metadata: StructMessage;
}

/** Envoy's units are whole seconds, minutes, hours and days; a window of another length is UNKNOWN (its name says it). */
const UNITS = new Map<number, RlsUnit>([
  [1, RlsUnit.SECOND],
  [60, RlsUnit.MINUTE],
  [3600, RlsUnit.HOUR],
  [86_400, RlsUnit.DAY],
]);

/**
 * The RateLimitResponse of a check's answer. The request was decided as one check, so every descriptor gets the
 * same status: the overall code and the limit that decided — the one that denied, or else the one with the least
 * left (as `X-RateLimit-*` name it). `RateLimit`, `RateLimit-Policy` (and `X-RateLimit-*`) go into
 * `response_headers_to_add`, with `Retry-After` when denied; `dynamic_metadata` says whom and how it was decided
 * (tenant, policy, mode, `would_deny` of a shadow policy, `degraded` without Redis, `reason` of a refusal).
 */
export function rateLimitResponse(answer: CheckAnswer, descriptorCount: number): RateLimitResponseMessage {
  const code: RlsCode = answer.allowed ? RlsCode.OK : RlsCode.OVER_LIMIT;
  const decisive = decidingLimit(answer);
  const status: DescriptorStatusMessage = { code, limit_remaining: decisive?.remaining ?? 0 };
  if (decisive) {
    status.current_limit = { name: decisive.name, requests_per_unit: decisive.limit, unit: UNITS.get(decisive.windowS) ?? RlsUnit.UNKNOWN };
    const resetMs = Math.max(0, Math.ceil(decisive.resetMs));
    status.duration_until_reset = { seconds: Math.floor(resetMs / 1000), nanos: (resetMs % 1000) * 1_000_000 };
  }
  return {
    overall_code: code,
    statuses: Array.from({ length: descriptorCount }, () => status),
    response_headers_to_add: Object.entries(answer.headers).map(([key, value]) => ({ key, value })),
    dynamic_metadata: metadataOf(answer),
  };
}

function decidingLimit(answer: CheckAnswer): LimitState | undefined {
  if (!answer.allowed && answer.retryAfterMs > 0) {
    const denying = answer.limits.find((l) => l.remaining <= 0);
    if (denying) return denying;
  }
  return mostRestrictive(answer.limits);
}

function metadataOf(answer: CheckAnswer): StructMessage {
  const fields: Record<string, StructValue> = { mode: { stringValue: answer.mode } };
  if (answer.tenant !== undefined) fields['tenant'] = { stringValue: answer.tenant };
  if (answer.policy !== undefined) fields['policy'] = { stringValue: answer.policy };
  if (answer.wouldDeny !== undefined) fields['would_deny'] = { boolValue: answer.wouldDeny };
  if (answer.degraded) fields['degraded'] = { boolValue: true };
  if (answer.reason !== undefined) fields['reason'] = { stringValue: answer.reason };
  fields['rule_version'] = { numberValue: answer.ruleVersion };
  return { fields };
}
