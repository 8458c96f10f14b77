import type { Metadata } from 'next';
import { EmptyState, ListPage } from '@/components/list-page';
import { MutationStatus } from '@/components/mutation-status';
import { NewPlanForm } from '@/components/new-plan-form';
import { PlanCard } from '@/components/plan-card';
import { listPlans } from '@/lib/api';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Plans' };

export default async function PlansPage() {
  const plans = await loadWithSession(listPlans);

  return (
    <ListPage
      title="Plans"
      description="Limits apply to every tenant on a plan. Every change publishes a new rule set to every API node."
      loaded={plans}
    >
      {(data) => (
        <>
          <NewPlanForm />
          <MutationStatus statusKey="plans" className="restore-status" />
          {data.length === 0 ? <EmptyState testId="plans-empty">No plans yet. Create the first with “New plan” above: every tenant is on one.</EmptyState> : data.map((plan) => <PlanCard key={plan.id} plan={plan} />)}
        </>
      )}
    </ListPage>
  );
}
