'use client';

import { enforcePolicy } from '@/lib/actions/policies';
import { ConfirmForm } from '../confirm-submit';
import { MutationStatus, MutationStatusProvider, useMutation } from '../mutation-status';

/** "Enforce this policy" → "Confirm: enforce": nothing changes before the second click; the page re-reads after. */
export function EnforceButton({ policyId, route }: { policyId: string; route: string }) {
  return (
    <MutationStatusProvider>
      <EnforceForm policyId={policyId} route={route} />
      <MutationStatus statusKey={`enforce-${policyId}`} />
    </MutationStatusProvider>
  );
}

function EnforceForm({ policyId, route }: { policyId: string; route: string }) {
  const [state, action] = useMutation(enforcePolicy, `enforce-${policyId}`);
  return (
    <ConfirmForm
      action={action}
      fields={{ policyId, route }}
      label="Enforce this policy"
      confirmLabel="Confirm: enforce"
      pendingLabel="Publishing…"
      title={`Switch ${route} from shadow to enforce: its limits start refusing requests (429)`}
      testId="policy-enforce"
      cancelTestId="policy-enforce-cancel"
    >
      {state.status === 'failed' && (
        <p className="form-alert" role="alert" data-testid="policy-enforce-error">
          {state.message}
        </p>
      )}
    </ConfirmForm>
  );
}
