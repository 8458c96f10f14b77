'use client';

import { acknowledgeAlertNow } from '@/lib/actions/alerts';
import { HiddenFields } from '../confirm-submit';
import { useMutation } from '../mutation-status';
import { SubmitButton } from '../submit-button';

/** Acknowledge of a firing alert: seen, no repeat until it resolves. Its outcome is said above the history. */
export function AcknowledgeButton({ alertId }: { alertId: string }) {
  const [state, action] = useMutation(acknowledgeAlertNow, 'alerts');
  return (
    <form action={action} className="actions-form alert-ack">
      <HiddenFields fields={{ alertId }} />
      <SubmitButton label="Acknowledge" pendingLabel="Saving…" className="btn btn-secondary btn-sm" testId={`alert-ack-${alertId}`} />
      {state.status === 'failed' && (
        <span className="form-error" role="alert" data-testid={`alert-ack-error-${alertId}`}>
          {state.message}
        </span>
      )}
    </form>
  );
}
