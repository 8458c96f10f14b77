import type { Prisma } from '@tollgate/db';
import type { Caller } from './caller';

export interface AuditEntry {
  actor: string;
  action: string;
  entityType: string;
  entityId: string;
  before?: unknown;
  after?: unknown;
}

/**
 * The audit rows each open transaction has written, so that the rule set version the transaction then publishes
 * can be stamped on them (`linkAuditToVersion`); a transaction that publishes none leaves them unlinked.
 */
const writtenIn = new WeakMap<Prisma.TransactionClient, bigint[]>();

/** Appends to the audit log inside the caller's transaction: the record and the change commit together. */
export async function writeAudit(tx: Prisma.TransactionClient, entry: AuditEntry): Promise<void> {
  const row = await tx.auditLog.create({
    data: {
      actor: entry.actor,
      action: entry.action,
      entityType: entry.entityType,
      entityId: entry.entityId,
      before: toJson(entry.before),
      after: toJson(entry.after),
    },
    select: { id: true },
  });
  const ids = writtenIn.get(tx);
  if (ids) ids.push(row.id);
  else writtenIn.set(tx, [row.id]);
}

/** What commits a change in one transaction with the rule set version it makes (RuleChangeService). */
interface RuleChanges {
  commit<T>(actor: string, change: (tx: Prisma.TransactionClient) => Promise<T>): Promise<{ result: T; ruleVersion: number }>;
}

/**
 * One entity created or changed as one audited rule change: `change` writes it in the transaction and gives it as
 * it was before (nothing for a new one) and after; the audit entry holds both views, and names the entity by
 * `entityId` (by default its id after the change). Answers its view after the change with the rule set version.
 */
export async function auditedChange<E extends { id: string }, V>(
  changes: RuleChanges,
  entry: { actor: string; action: string; entityType: string; entityId?: string },
  view: (entity: E) => V,
  change: (tx: Prisma.TransactionClient) => Promise<{ before?: E; after: E }>,
): Promise<{ view: V; ruleVersion: number }> {
  const { result, ruleVersion } = await changes.commit(entry.actor, async (tx) => {
    const { before, after } = await change(tx);
    await writeAudit(tx, { ...entry, entityId: entry.entityId ?? after.id, before: before && view(before), after: view(after) });
    return after;
  });
  return { view: view(result), ruleVersion };
}

/** Records on the audit rows this transaction wrote that their change published `ruleVersion`. */
export async function linkAuditToVersion(tx: Prisma.TransactionClient, ruleVersion: number): Promise<void> {
  const ids = writtenIn.get(tx);
  writtenIn.delete(tx);
  if (ids) await tx.auditLog.updateMany({ where: { id: { in: ids } }, data: { ruleVersion } });
}

/** How a caller is named in the audit log and as a rule set's author. */
export function actorOf(caller: Caller): string {
  switch (caller.kind) {
    case 'operator':
      return `user:${caller.user.email}`;
    case 'tenant':
      return caller.user ? `user:${caller.user.email}` : `key:${caller.keyPrefix}`;
    case 'service':
      return `key:${caller.prefix}`;
    default:
      return 'anonymous';
  }
}

function toJson(value: unknown): Prisma.InputJsonValue | undefined {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue);
}
