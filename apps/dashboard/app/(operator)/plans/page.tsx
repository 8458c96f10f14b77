import type { Metadata } from 'next';
import { EmptyState, ListPage } from '@/components/list-page';
import { MutationStatus } from '@/components/mutation-status';
import { NewPlanForm } from '@/components/new-plan-form';
import { PlanCard } from '@/components/plan-card';
import { getPlansAtLimit, listPlans } from '@/lib/api';
import { byId, type PlanAtLimit, type RowTraffic } from '@/lib/list-traffic';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Plans' };

export default async function PlansPage() {
  const plans = await loadWithSession(async (token) => {
    const items = await listPlans(token);
    return { items, atLimit: await atLimitOf(token, items.map((p) => p.id)) };
  });

  return (
    <ListPage
      title="Plans"
      description="Limits apply to every tenant on a plan. Every change publishes a new rule set to every API node."
      loaded={plans}
    >
      {({ items: data, atLimit }) => (
        <>
          <NewPlanForm />
          <MutationStatus statusKey="plans" className="restore-status" />
          {data.length === 0 ? <EmptyState testId="plans-empty">No plans yet. Create the first with “New plan” above: every tenant is on one.</EmptyState> : data.map((plan) => <PlanCard key={plan.id} plan={plan} atLimit={atLimit} />)}
        </>
      )}
    </ListPage>
  );
}

/** The most plans one read of plans at their limit names. */
const AT_LIMIT_IDS = 200;

/** How many tenants of each plan are at a limit now, a request per 200 plans; null when a read failed (the plans are shown without it). */
async function atLimitOf(token: string, planIds: readonly string[]): Promise<RowTraffic<PlanAtLimit> | null> {
  const chunks = Array.from({ length: Math.ceil(planIds.length / AT_LIMIT_IDS) }, (_, i) => planIds.slice(i * AT_LIMIT_IDS, (i + 1) * AT_LIMIT_IDS));
  try {
    const answers = await Promise.all(chunks.map((ids) => getPlansAtLimit(token, ids)));
    return { rows: byId(answers.flatMap((a) => a.items), (e) => e.planId), live: answers.every((a) => a.live) };
  } catch {
    return null;
  }
}
