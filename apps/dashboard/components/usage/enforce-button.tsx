'use client';

import { useState } from 'react';
import { enforcePolicy } from '@/lib/actions/policies';
import { ConfirmSubmit } from '../confirm-submit';
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
  const [confirming, setConfirming] = useState(false);
  const [state, action] = useMutation(enforcePolicy, `enforce-${policyId}`);
  return (
    <form
      action={(formData) => {
        setConfirming(false);
        action(formData);
      }}
      className="would-deny-actions"
    >
      <input type="hidden" name="policyId" value={policyId} />
      <input type="hidden" name="route" value={route} />
      <ConfirmSubmit
        confirming={confirming}
        onArm={() => setConfirming(true)}
        onCancel={() => setConfirming(false)}
        label="Enforce this policy"
        confirmLabel="Confirm: enforce"
        pendingLabel="Publishing…"
        title={`Switch ${route} from shadow to enforce: its limits start refusing requests (429)`}
        testId="policy-enforce"
        cancelTestId="policy-enforce-cancel"
      />
      {state.status === 'failed' && (
        <p className="form-alert" role="alert" data-testid="policy-enforce-error">
          {state.message}
        </p>
      )}
    </form>
  );
}
