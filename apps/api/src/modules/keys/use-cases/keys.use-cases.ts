import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import type { Prisma } from '@tollgate/db';
import { auditedChange, writeAudit } from '../../../common/audit';
import { found } from '../../../common/found';
import { RuleChangeService } from '../../rules/rule-change.service';
import { generateKey } from '../key-format';
import type { NewKey } from '../dto/key.schemas';
import { keyInclude, toKeyView, type KeyView } from '../key-views';

type Tx = Prisma.TransactionClient;

async function keyOf(tx: Tx, id: string) {
  const key = found(await tx.apiKey.findUnique({ where: { id }, include: keyInclude }), 'key');
  return key;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The ids of the tenants named by id or slug. A slug shaped like another tenant's id would name two tenants: that is
 * refused rather than guessed.
 */
async function tenantIdsOf(tx: Tx, refs: readonly string[]): Promise<string[]> {
  const wanted = [...new Set(refs)];
  const found = await tx.tenant.findMany({
    where: { OR: [{ id: { in: wanted.filter((ref) => UUID.test(ref)) } }, { slug: { in: wanted } }] },
    select: { id: true, slug: true },
  });
  const byId = new Map(found.map((t) => [t.id, t.id]));
  const bySlug = new Map(found.map((t) => [t.slug, t.id]));
  const ids = new Set<string>();
  for (const ref of wanted) {
    const asId = byId.get(ref.toLowerCase());
    const asSlug = bySlug.get(ref);
    if (asId && asSlug && asId !== asSlug) throw new AppError(ErrorCode.VALIDATION_FAILED, `"${ref}" is one tenant's id and another's slug`, 'tenants');
    const id = asId ?? asSlug;
    if (!id) throw new AppError(ErrorCode.VALIDATION_FAILED, `unknown tenant in the list: ${ref}`, 'tenants');
    ids.add(id);
  }
  return [...ids];
}

/** Creates a key; its secret is in this answer and nowhere else, ever (only its SHA-256 is stored). */
@Injectable()
export class CreateKeyUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, input: NewKey): Promise<{ key: string; apiKey: KeyView; ruleVersion: number }> {
    const secret = generateKey(input.kind);
    const { view, ruleVersion } = await auditedChange(this.changes, { actor, action: 'api_key.created', entityType: 'api_key' }, toKeyView, async (tx) => {
      if (input.kind === 'tenant' && !(await tx.tenant.findUnique({ where: { id: input.tenantId }, select: { id: true } }))) {
        throw new AppError(ErrorCode.VALIDATION_FAILED, 'no tenant with this id', 'tenantId');
      }
      const scope = input.kind === 'service' && input.tenants ? await tenantIdsOf(tx, input.tenants) : [];
      const after = await tx.apiKey.create({
        data: {
          kind: input.kind,
          name: input.name,
          prefix: secret.prefix,
          hash: secret.hash,
          tenantId: input.kind === 'tenant' ? input.tenantId : null,
          allTenants: input.kind === 'service' && input.tenants === undefined,
          scopedTenants: { create: scope.map((tenantId) => ({ tenantId })) },
          expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
        },
        include: keyInclude,
      });
      return { after };
    });
    return { key: secret.key, apiKey: view, ruleVersion };
  }
}

/** Revokes a key: refused by every node as soon as the new rule set version is in force (within a second). */
@Injectable()
export class RevokeKeyUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, id: string): Promise<{ apiKey: KeyView; ruleVersion: number }> {
    const { result, ruleVersion } = await this.changes.commit(actor, async (tx) => {
      const before = await keyOf(tx, id);
      if (before.revokedAt) return before;
      const after = await tx.apiKey.update({ where: { id }, data: { revokedAt: new Date() }, include: keyInclude });
      await writeAudit(tx, { actor, action: 'api_key.revoked', entityType: 'api_key', entityId: id, before: toKeyView(before), after: toKeyView(after) });
      return after;
    });
    return { apiKey: toKeyView(result), ruleVersion };
  }
}

/**
 * Replaces a key by a new one with the same kind, name and scope; the old key keeps working for
 * `overlapSeconds` (so clients can switch without an outage), then expires.
 */
@Injectable()
export class RotateKeyUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, id: string, overlapSeconds: number): Promise<{ key: string; apiKey: KeyView; previous: KeyView; ruleVersion: number }> {
    const { result, ruleVersion } = await this.changes.commit(actor, async (tx) => {
      const old = await keyOf(tx, id);
      if (old.revokedAt || (old.expiresAt && old.expiresAt.getTime() <= Date.now())) {
        throw new AppError(ErrorCode.CONFLICT, 'a revoked or expired key cannot be rotated; create a new one');
      }
      const secret = generateKey(old.kind);
      const created = await tx.apiKey.create({
        data: {
          kind: old.kind,
          name: old.name,
          prefix: secret.prefix,
          hash: secret.hash,
          tenantId: old.tenantId,
          allTenants: old.allTenants,
          scopedTenants: { create: old.scopedTenants.map(({ tenant }) => ({ tenantId: tenant.id })) },
          expiresAt: old.expiresAt,
        },
        include: keyInclude,
      });
      const overlapEnds = new Date(Date.now() + overlapSeconds * 1000);
      const previous = await tx.apiKey.update({
        where: { id },
        data: { expiresAt: old.expiresAt && old.expiresAt < overlapEnds ? old.expiresAt : overlapEnds },
        include: keyInclude,
      });
      await writeAudit(tx, { actor, action: 'api_key.rotated', entityType: 'api_key', entityId: id, before: toKeyView(old), after: { previous: toKeyView(previous), replacement: toKeyView(created) } });
      return { key: secret.key, created, previous };
    });
    return { key: result.key, apiKey: toKeyView(result.created), previous: toKeyView(result.previous), ruleVersion };
  }
}
