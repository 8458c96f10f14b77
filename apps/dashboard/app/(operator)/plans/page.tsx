import type { Metadata } from 'next';
import { ErrorPanel } from '@/components/error-panel';
import { LimitSaveProvider } from '@/components/limit-save';
import { MutationStatus, MutationStatusProvider } from '@/components/mutation-status';
import { NewPlanForm } from '@/components/new-plan-form';
import { PageHeading } from '@/components/page-heading';
import { PlanCard } from '@/components/plan-card';
import { listPlans } from '@/lib/api';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Plans' };

export default async function PlansPage() {
  const plans = await loadWithSession(listPlans);

  return (
    <>
      <PageHeading
        title="Plans"
        description="Limits apply to every tenant on a plan. Every change publishes a new rule set to every API node."
      />
      {!plans.ok ? (
        <ErrorPanel problem={plans.problem} />
      ) : (
        <MutationStatusProvider>
          <LimitSaveProvider>
            <div className="plan-grid">
              <NewPlanForm />
              <MutationStatus statusKey="plans" className="restore-status" />
              {plans.data.length === 0 ? (
                <p className="card panel muted">No plans yet.</p>
              ) : (
                plans.data.map((plan) => <PlanCard key={plan.id} plan={plan} />)
              )}
            </div>
          </LimitSaveProvider>
        </MutationStatusProvider>
      )}
    </>
  );
}
