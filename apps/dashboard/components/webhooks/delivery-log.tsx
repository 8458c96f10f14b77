'use client';

import { useState } from 'react';
import { replayRange, resendDelivery } from '@/lib/actions/webhooks';
import type { WebhookDelivery } from '@/lib/api-answers';
import type { WebhookAudience } from '@/lib/api-webhooks';
import { formatTimestamp } from '@/lib/format';
import { DELIVERY_STATUS_LABELS } from '@/lib/webhooks';
import { ActionRow } from '../action-row';
import { HiddenFields } from '../confirm-submit';
import { DataTable } from '../data-table';
import { Field } from '../form-field';
import { InlineForm } from '../inline-form';
import { MutationStatus, useMutation, useSuccessMessage } from '../mutation-status';
import { SubmitButton } from '../submit-button';
import { ToggleButton } from '../toggle-button';

const COLUMNS = 7;

const ATTEMPT_BADGES: Readonly<Record<WebhookDelivery['attemptLog'][number]['outcome'], string>> = {
  delivered: 'badge-delivery-delivered',
  failed: 'badge-delivery-failed',
  unknown: 'badge-delivery-pending',
};
/** An attempt logged before it was sent, with no outcome written: the receiver may have got it; a retry follows. */
const ATTEMPT_UNKNOWN = 'in flight — outcome unknown';

interface DeliveryLogProps {
  audience: WebhookAudience;
  endpointId: string;
  deliveries: readonly WebhookDelivery[];
}

/** The endpoint's deliveries, newest first: each opens to its attempts, and can be sent again. */
export function DeliveryLog({ audience, endpointId, deliveries }: DeliveryLogProps) {
  return (
    <DataTable testId="webhook-deliveries" columns={['Event', 'Event id', 'Status', 'Attempts', 'Created', 'Next try']} actions>
      {deliveries.map((delivery) => (
        <DeliveryRow key={delivery.id} audience={audience} endpointId={endpointId} delivery={delivery} />
      ))}
    </DataTable>
  );
}

function DeliveryRow({ audience, endpointId, delivery }: { audience: WebhookAudience; endpointId: string; delivery: WebhookDelivery }) {
  const [open, setOpen] = useState(false);
  const statusKey = `delivery-${delivery.id}`;
  const [resent, resendAction] = useMutation(resendDelivery, statusKey);
  const succeeded = useSuccessMessage(statusKey) !== undefined;
  return (
    <ActionRow
      testId={`delivery-row-${delivery.id}`}
      columns={COLUMNS}
      statusKey={statusKey}
      actions={
        <>
          <ToggleButton expanded={open} onToggle={() => setOpen(!open)} label={open ? 'Hide attempts' : 'Attempts'} testId={`delivery-attempts-${delivery.id}`} />
          <form action={resendAction} className="actions-form">
            <HiddenFields fields={{ audience, endpointId, eventId: delivery.eventId }} />
            <SubmitButton label="Resend" pendingLabel="Sending…" className="btn btn-secondary btn-sm" testId={`delivery-resend-${delivery.id}`} />
          </form>
        </>
      }
      panel={open && <AttemptList delivery={delivery} />}
      failure={!succeeded && resent.status === 'failed' ? { message: resent.message, testId: `delivery-error-${delivery.id}` } : undefined}
    >
      <td>
        <code>{delivery.eventType}</code>
      </td>
      <td className="webhook-id">
        <code title="Its webhook-id header">{delivery.eventId}</code>
      </td>
      <td>
        <span className={`badge badge-delivery-${delivery.status}`} data-testid={`delivery-status-${delivery.id}`}>
          {statusLabel(delivery)}
        </span>
      </td>
      <td className="table-num">{delivery.attempts}</td>
      <td className="muted">{formatTimestamp(delivery.createdAt)}</td>
      <td className="muted">{delivery.nextAttemptAt ? formatTimestamp(delivery.nextAttemptAt) : '—'}</td>
    </ActionRow>
  );
}

/** A waiting delivery is "retrying" after a failed attempt, and "in flight" while its last attempt has no outcome. */
function statusLabel(delivery: WebhookDelivery): string {
  if (delivery.status !== 'pending' || delivery.attempts === 0) return DELIVERY_STATUS_LABELS[delivery.status];
  return delivery.attemptLog.at(-1)?.outcome === 'unknown' ? ATTEMPT_UNKNOWN : 'retrying';
}

/** Every attempt of one delivery: when, what came back (a status code or an error), how long it took, the answer's start. */
function AttemptList({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attemptLog.length === 0) {
    return (
      <p className="muted attempts-empty" data-testid={`delivery-attempt-list-${delivery.id}`}>
        No attempt yet{delivery.nextAttemptAt ? `: the first is due ${formatTimestamp(delivery.nextAttemptAt)}` : ''}.
      </p>
    );
  }
  return (
    <ol className="attempts" data-testid={`delivery-attempt-list-${delivery.id}`}>
      {delivery.attemptLog.map((attempt) => (
        <li key={attempt.attempt} className="attempt" data-testid={`delivery-attempt-${delivery.id}-${attempt.attempt}`}>
          <div className="attempt-head">
            <span className="muted">#{attempt.attempt}</span>
            <span>{formatTimestamp(attempt.at)}</span>
            <span className={`badge ${ATTEMPT_BADGES[attempt.outcome]}`} data-testid={`delivery-attempt-outcome-${delivery.id}-${attempt.attempt}`}>
              {attempt.outcome === 'unknown' ? ATTEMPT_UNKNOWN : (attempt.statusCode ?? 'no answer')}
            </span>
            {attempt.latencyMs !== null && <span className="muted">{attempt.latencyMs} ms</span>}
          </div>
          {attempt.error && <p className="attempt-error">{attempt.error}</p>}
          {attempt.responseBody && <pre className="attempt-body">{attempt.responseBody}</pre>}
        </li>
      ))}
    </ol>
  );
}

interface ReplayFormProps {
  audience: WebhookAudience;
  endpointId: string;
  /** The range it opens with (UTC, to the minute): the last day. */
  from: string;
  to: string;
}

/** "Replay a range": sends again the events of a time range, those not delivered to it or every one. */
export function ReplayForm({ audience, endpointId, from, to }: ReplayFormProps) {
  const [open, setOpen] = useState(false);
  return (
    <div className="webhook-replay">
      <ToggleButton expanded={open} onToggle={() => setOpen(!open)} label="Replay a range" testId="webhook-replay-open" />
      {open && (
        <InlineForm
          action={replayRange}
          statusKey="webhook-replay"
          onDone={() => setOpen(false)}
          hidden={{ audience, endpointId }}
          label="Replay the events of a range"
          errorFields={['from', 'to', 'include']}
          errorTestId="webhook-replay-error"
          submit={{ label: 'Replay', pendingLabel: 'Replaying…', testId: 'webhook-replay-submit' }}
          changesOnly={false}
          after={<p className="form-hint muted">Times are UTC. The oldest first, each keeping its webhook-id; at most 1,000 events a replay, and no more than a minute’s sends by hand (each event counts): replay again for the rest.</p>}
        >
          {(state) => (
            <>
              <Field label="From" name="from" state={state} fallback={from} testId="webhook-replay-from" input={{ type: 'datetime-local' }} />
              <Field label="To" name="to" state={state} fallback={to} testId="webhook-replay-to" input={{ type: 'datetime-local' }} />
              <Field
                label="Events"
                name="include"
                state={state}
                fallback="failed"
                testId="webhook-replay-include"
                control={(props) => (
                  <select {...props} className="input">
                    <option value="failed">Not delivered to it</option>
                    <option value="all">Every one</option>
                  </select>
                )}
              />
            </>
          )}
        </InlineForm>
      )}
      <MutationStatus statusKey="webhook-replay" />
    </div>
  );
}
