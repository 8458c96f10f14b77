import type { ReactNode } from 'react';
import type { LimitInForce, LiveLimit } from '@/lib/api-answers';
import { formatCount, formatRate, formatWait } from '@/lib/format';
import { formatInZone, meterView } from '@/lib/usage';
import { LimitMeter } from './limit-meter';
import './limits.css';
import './live-limits.css';

interface LiveLimitListProps {
  /** The tenant's own limits as the rule set holds them. */
  limits: LimitInForce[];
  /** Their state now, by name; null when Redis did not answer. */
  live: LiveLimit[] | null;
  /** The tenant's zone: when a limit is whole again is said by its clock. */
  timeZone: string;
  testId: (name: string) => string;
  /** Under a bar at 100 %: what the reader can do about it (the operator: an override; a tenant: ask for more). */
  whenFull: ReactNode;
}

/** Each of a tenant's limits with a bar of what is used now, what is left and when it is whole again. */
export function LiveLimitList({ limits, live, timeZone, testId, whenFull }: LiveLimitListProps) {
  const states = new Map((live ?? []).map((state) => [state.name, state]));
  return (
    <ul className="limit-list">
      {limits.map((limit) => {
        const state = states.get(limit.name);
        return (
          <li key={limit.name} className="live-limit" data-testid={testId(limit.name)}>
            <div className="live-limit-name">
              <div className="limit-name">{limit.name}</div>
              <div className="limit-window">{formatRate(limit)}</div>
            </div>
            {state ? (
              <LiveState name={limit.name} state={state} timeZone={timeZone} testId={testId(limit.name)} whenFull={whenFull} />
            ) : (
              <p className="live-limit-text muted">{live === null ? 'Its state now is unavailable: the limiter did not answer.' : 'No state of its own yet.'}</p>
            )}
          </li>
        );
      })}
    </ul>
  );
}

interface LiveStateProps {
  name: string;
  state: LiveLimit;
  timeZone: string;
  testId: string;
  whenFull: ReactNode;
}

function LiveState({ name, state, timeZone, testId, whenFull }: LiveStateProps) {
  const view = meterView(state);
  return (
    <div className="live-limit-state">
      <LimitMeter live={state} label={`${name} limit used`} testId={`${testId}-meter`} />
      <p className="live-limit-text">
        <span data-testid={`${testId}-used`}>{view.text}</span>
        <span className="muted"> · </span>
        <span data-testid={`${testId}-remaining`}>{formatCount(Math.max(0, state.remaining))} left</span>
        <span className="muted"> · </span>
        <span data-testid={`${testId}-resets`}>{state.resetsAt ? `resets ${formatInZone(state.resetsAt, timeZone, true)}` : 'whole now'}</span>
      </p>
      {view.tone === 'full' && (
        <p className="live-limit-full" data-testid={`${testId}-full`}>
          <strong>{fullUntil(state, timeZone)}</strong> {whenFull}
        </p>
      )}
    </div>
  );
}

/** What a used-up limit means for the calls counted on it, and for how long (the page reads itself again as time passes). */
function fullUntil(state: LiveLimit, timeZone: string): string {
  if (!state.resetsAt) return 'Nothing left: calls counted on this limit are refused.';
  const seconds = (Date.parse(state.resetsAt) - Date.now()) / 1000;
  const at = `${formatInZone(state.resetsAt, timeZone, true)} ${timeZone}`;
  return `Nothing left: calls counted on this limit are refused ${seconds > 0 ? `for ${formatWait(seconds)} more, until ${at}` : `until ${at}`}.`;
}
