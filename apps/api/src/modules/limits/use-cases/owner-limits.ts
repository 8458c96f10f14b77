import type { LimitPatch, LimitView } from '@tollgate/domain';
import type { Prisma } from '@tollgate/db';
import { writeAudit } from '../../../common/audit';
import { found } from '../../../common/found';
import { toLimitBody, toLimitView } from '../limit-views';

type Tx = Prisma.TransactionClient;

/** Who has limits of their own: a plan, an endpoint policy, a tenant (its overrides of its plan's limits). */
export type LimitOwnerKind = 'plan' | 'policy' | 'tenant';

/** A limit by id (plan and policy limits) or by name (a tenant's overrides, named in the path). */
export type LimitRef = { id: string } | { name: string };

/** The part of a Prisma delegate of a limit table the use-cases need: the three tables have the same columns. */
interface LimitTable {
  findFirst(args: { where: object }): Promise<LimitView | null>;
  create(args: { data: object }): Promise<LimitView>;
  update(args: { where: { id: string }; data: LimitPatch }): Promise<LimitView>;
  delete(args: { where: { id: string } }): Promise<unknown>;
}

interface OwnerTable {
  findUnique(args: { where: { id: string }; select: { id: true } }): Promise<object | null>;
}

// Each delegate's methods are generic over its own model's arguments; the columns are the same (see LimitTable).
const as = <T>(delegate: unknown) => delegate as T;

function tablesOf(tx: Tx, kind: LimitOwnerKind): { limits: LimitTable; owners: OwnerTable } {
  switch (kind) {
    case 'plan':
      return { limits: as(tx.planLimit), owners: as(tx.plan) };
    case 'policy':
      return { limits: as(tx.endpointPolicyLimit), owners: as(tx.endpointPolicy) };
    case 'tenant':
      return { limits: as(tx.tenantLimitOverride), owners: as(tx.tenant) };
  }
}

type Change = 'created' | 'updated' | 'removed';

interface OwnerKindSpec {
  /** In 404s: `plan not found`, `plan limit not found`. */
  names: { owner: string; limit: string };
  /** The limit table's column naming its owner. */
  ownerColumn: 'planId' | 'policyId' | 'tenantId';
  /** What the audit log records of a change (as it always has for each kind): its type, actions, entity, record. */
  audit: { entityType: string; actions: Readonly<Record<Change, string>>; entityId(ownerId: string, limit: LimitView): string; record(ownerId: string, limit: LimitView): object };
}

const byLimitId = (_owner: string, l: LimitView) => l.id;
const actionsOf = (prefix: string) => ({ created: `${prefix}.created`, updated: `${prefix}.updated`, removed: `${prefix}.deleted` });

const KINDS: Readonly<Record<LimitOwnerKind, OwnerKindSpec>> = {
  plan: {
    names: { owner: 'plan', limit: 'plan limit' },
    ownerColumn: 'planId',
    audit: { entityType: 'plan_limit', actions: actionsOf('plan_limit'), entityId: byLimitId, record: (_owner, l) => toLimitView(l) },
  },
  policy: {
    names: { owner: 'policy', limit: 'policy limit' },
    ownerColumn: 'policyId',
    audit: { entityType: 'policy_limit', actions: actionsOf('policy_limit'), entityId: byLimitId, record: (policyId, l) => ({ policyId, ...toLimitView(l) }) },
  },
  // A tenant's overrides are recorded as changes of the tenant, by name (a name is the override's identity).
  tenant: {
    names: { owner: 'tenant', limit: 'override' },
    ownerColumn: 'tenantId',
    audit: { entityType: 'tenant', actions: { created: 'tenant_override.set', updated: 'tenant_override.set', removed: 'tenant_override.removed' }, entityId: (tenantId) => tenantId, record: (_owner, l) => toLimitBody(l) },
  },
};

/** One owner's limits: its table, the lookups that answer 404 and its audit records. */
export class OwnerLimits {
  private readonly spec: OwnerKindSpec;
  private readonly tables: { limits: LimitTable; owners: OwnerTable };

  constructor(
    private readonly tx: Tx,
    kind: LimitOwnerKind,
    readonly ownerId: string,
  ) {
    this.spec = KINDS[kind];
    this.tables = tablesOf(tx, kind);
  }

  get table(): LimitTable {
    return this.tables.limits;
  }


  /** The owner's column and id, for a new limit's row. */
  get owner(): Record<string, string> {
    return { [this.spec.ownerColumn]: this.ownerId };
  }

  async assertOwner(): Promise<void> {
    found(await this.tables.owners.findUnique({ where: { id: this.ownerId }, select: { id: true } }), this.spec.names.owner);
  }

  find(ref: LimitRef): Promise<LimitView | null> {
    return this.table.findFirst({ where: { ...this.owner, ...ref } });
  }

  async get(ref: LimitRef): Promise<LimitView> {
    return found(await this.find(ref), this.spec.names.limit);
  }

  /** Appends a change of one of the limits to the audit log, in the change's transaction. */
  audit(actor: string, change: Change, before: LimitView | null, after: LimitView | null): Promise<void> {
    const { entityType, actions, entityId, record } = this.spec.audit;
    const limit = after ?? before;
    if (!limit) throw new Error('a change of a limit has a limit before or after it');
    return writeAudit(this.tx, {
      actor,
      action: actions[change],
      entityType,
      entityId: entityId(this.ownerId, limit),
      before: before ? record(this.ownerId, before) : undefined,
      after: after ? record(this.ownerId, after) : undefined,
    });
  }
}
