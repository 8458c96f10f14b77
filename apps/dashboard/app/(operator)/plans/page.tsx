import type { Metadata } from 'next';
import { LimitSaveProvider } from '@/components/limit-save';
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
        <LimitSaveProvider>
          <NewPlanForm />
          <MutationStatus statusKey="plans" className="restore-status" />
          {data.length === 0 ? <EmptyState>No plans yet.</EmptyState> : data.map((plan) => <PlanCard key={plan.id} plan={plan} />)}
        </LimitSaveProvider>
      )}
    </ListPage>
  );
}
