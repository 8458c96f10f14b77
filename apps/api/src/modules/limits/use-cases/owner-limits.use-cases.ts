import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type LimitPatch, type LimitView, type NewLimit, patchedLimit } from '@tollgate/domain';
import { RuleChangeService } from '../../rules/rule-change.service';
import { toLimitView } from '../limit-views';
import { type LimitOwnerKind, OwnerLimits, type LimitRef } from './owner-limits';

/*
 * The limits of an owner (a plan, an endpoint policy, a tenant's overrides): one set of use-cases for the three.
 * Every write is one audited rule change and answers with its rule set version; an unknown owner or limit is a
 * 404, a taken name a 409.
 */

/** The limit as the API shows a plan's or a policy's (a tenant's override is shown without its id: see toLimitBody). */
type Answer = { limit: LimitView; ruleVersion: number };

/** Runs `change` on one owner's limits as one rule change; answers with the limit it gives back and the version. */
async function commitLimit(changes: RuleChangeService, actor: string, kind: LimitOwnerKind, ownerId: string, change: (limits: OwnerLimits) => Promise<LimitView>): Promise<Answer> {
  const { result, ruleVersion } = await changes.commit(actor, async (tx) => {
    return toLimitView(await change(new OwnerLimits(tx, kind, ownerId)));
  });
  return { limit: result, ruleVersion };
}

/**
 * Adds a limit to its owner (a taken name is a 409), or with `replace` sets the whole of the owner's limit of that
 * name: creates it, or replaces what there was (a tenant's override, written with PUT).
 */
@Injectable()
export class AddLimitUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  execute(actor: string, kind: LimitOwnerKind, ownerId: string, input: NewLimit, options: { replace: boolean } = { replace: false }): Promise<Answer> {
    return commitLimit(this.changes, actor, kind, ownerId, async (limits) => {
      await limits.assertOwner();
      const before = options.replace ? await limits.find({ name: input.name }) : null;
      const after = before ? await limits.table.update({ where: { id: before.id }, data: input }) : await limits.table.create({ data: { ...limits.owner, ...input } });
      await limits.audit(actor, before ? 'updated' : 'created', before, after);
      return after;
    });
  }
}

/** Changes some fields of a limit; a patch that leaves a calendar on anything but its fixed window is a 400. */
@Injectable()
export class UpdateLimitUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  execute(actor: string, kind: LimitOwnerKind, ownerId: string, ref: LimitRef, patch: LimitPatch): Promise<Answer> {
    return commitLimit(this.changes, actor, kind, ownerId, async (limits) => {
      const before = await limits.get(ref);
      const { data, problem } = patchedLimit(before, patch);
      if (problem) throw new AppError(ErrorCode.VALIDATION_FAILED, `${problem.path}: ${problem.message}`, problem.path);
      const after = await limits.table.update({ where: { id: before.id }, data });
      await limits.audit(actor, 'updated', before, after);
      return after;
    });
  }
}

/** Removes a limit from its owner (a tenant's override: its plan's limit of that name applies again, if any). */
@Injectable()
export class RemoveLimitUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, kind: LimitOwnerKind, ownerId: string, ref: LimitRef): Promise<{ ruleVersion: number }> {
    const { ruleVersion } = await this.changes.commit(actor, async (tx) => {
      const limits = new OwnerLimits(tx, kind, ownerId);
      await limits.assertOwner();
      const before = await limits.get(ref);
      await limits.table.delete({ where: { id: before.id } });
      await limits.audit(actor, 'removed', before, null);
    });
    return { ruleVersion };
  }
}
