import { FAILURE_MODES, POLICY_METHODS, POLICY_MODES, REGION_SCOPES, SUBJECT_SCOPES, type Policy } from './api-answers';
import { type FieldProblem, readWholeNumber } from './limits';
import { searchParam } from './list-filters';

/**
 * What a policy form offers and how it reads back. Pure, so the client forms and the server actions that check
 * what was posted share one definition.
 */

export const MODE_LABELS: Record<Policy['mode'], string> = { enforce: 'Enforce', shadow: 'Shadow (never deny)', off: 'Off' };
/** What a check does when Redis cannot answer in time (the field's label says "when Redis is away"). */
export const FAILURE_MODE_LABELS: Record<Policy['failureMode'], string> = { open: 'Open: pass', closed: 'Closed: 503', local: 'Local: in memory' };
export const SCOPE_LABELS: Record<Policy['scope'], string> = { tenant: 'Whole tenant', subject: 'Per subject', ip: 'Per client address' };
/** Whether a check waits for a replica to hold its writes before Redis's answer is given (`replicaAck`). */
export const REPLICA_ACK_CHOICES = ['at_once', 'replica'] as const;
export const REPLICA_ACK_LABELS: Record<(typeof REPLICA_ACK_CHOICES)[number], string> = {
  at_once: 'Answer at once',
  replica: 'Wait for a replica (no over-admission after a failover)',
};

/** Where the policy's quota holds (`regionScope`): in each region on its own, or once across every region. */
export const REGION_SCOPE_LABELS: Record<Policy['regionScope'], string> = {
  region: 'In each region',
  global: 'Once across all regions (fixed windows only)',
};

type Read = (name: string) => string;

function oneOf<T extends string>(values: readonly T[], value: string): T | undefined {
  return (values as readonly string[]).includes(value) ? (value as T) : undefined;
}

/** The settings an operator changes on an existing policy (the Edit form): mode, failure mode, cost, scope, durability and regions. */
export function readPolicySettings(read: Read): Pick<Policy, 'mode' | 'failureMode' | 'cost' | 'scope' | 'replicaAck' | 'regionScope'> | FieldProblem {
  const cost = readWholeNumber(read('cost'));
  if (cost === undefined || cost === 0) return { field: 'cost', message: 'Enter a whole number of 1 or more.' };
  const mode = oneOf(POLICY_MODES, read('mode'));
  if (!mode) return { field: 'mode', message: 'Choose a mode.' };
  const failureMode = oneOf(FAILURE_MODES, read('failureMode'));
  if (!failureMode) return { field: 'failureMode', message: 'Choose a failure mode.' };
  const scope = oneOf(SUBJECT_SCOPES, read('scope'));
  if (!scope) return { field: 'scope', message: 'Choose whose requests share a bucket.' };
  const durability = oneOf(REPLICA_ACK_CHOICES, read('replicaAck'));
  if (!durability) return { field: 'replicaAck', message: 'Choose when a check is answered.' };
  const regionScope = oneOf(REGION_SCOPES, read('regionScope'));
  if (!regionScope) return { field: 'regionScope', message: 'Choose where the quota holds.' };
  return { mode, failureMode, cost, scope, replicaAck: durability === 'replica', regionScope };
}

/** A whole new policy's own fields; its owner is posted as `owner` = `plan:<id>` or `tenant:<id>`. */
export function readNewPolicy(read: Read): ({ planId: string } | { tenantId: string }) & Pick<Policy, 'name' | 'method' | 'pattern' | 'mode' | 'failureMode' | 'cost' | 'scope' | 'replicaAck' | 'regionScope'> | FieldProblem {
  const [kind, ownerId] = read('owner').split(':');
  if (!ownerId || (kind !== 'plan' && kind !== 'tenant')) return { field: 'planId', message: 'Choose the plan or tenant the policy is for.' };
  const name = read('name').trim();
  if (name === '') return { field: 'name', message: 'Enter a name, e.g. items.' };
  const method = oneOf(POLICY_METHODS, read('method'));
  if (!method) return { field: 'method', message: 'Choose a method.' };
  const pattern = read('pattern').trim();
  if (pattern === '') return { field: 'pattern', message: 'Enter a route pattern, e.g. /v1/items/*.' };
  const settings = readPolicySettings(read);
  if ('field' in settings) return settings;
  return { ...(kind === 'plan' ? { planId: ownerId } : { tenantId: ownerId }), name, method, pattern, ...settings };
}

/** `plan starter` or `tenant acme`: whose policy it is. */
export function ownerLabel(policy: Pick<Policy, 'plan' | 'tenant'>): string {
  return policy.plan ? `plan ${policy.plan.slug}` : `tenant ${policy.tenant?.slug ?? '?'}`;
}

/** The filters of the policies page, from its query string; anything unknown is ignored. */
export function parsePolicyFilter(params: Record<string, string | string[] | undefined>) {
  const first = (name: string) => {
    const value = params[name];
    return (Array.isArray(value) ? value[0] : value) || undefined;
  };
  const owner = first('owner')?.split(':');
  const q = searchParam(params);
  return {
    ...(q ? { q } : {}),
    ...(owner?.[0] === 'plan' && owner[1] ? { planId: owner[1] } : {}),
    ...(owner?.[0] === 'tenant' && owner[1] ? { tenantId: owner[1] } : {}),
    method: oneOf(POLICY_METHODS, first('method') ?? ''),
    mode: oneOf(POLICY_MODES, first('mode') ?? ''),
  };
}
