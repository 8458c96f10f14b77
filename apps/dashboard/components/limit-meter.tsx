import type { LiveLimit } from '@/lib/api-answers';
import { meterView } from '@/lib/usage';
import './limit-meter.css';

interface LimitMeterProps {
  live: LiveLimit;
  /** What the bar measures, for screen readers ("minute limit"). */
  label: string;
  testId?: string;
}

/** How much of a limit is used, as a bar: a meter with its values and its words for assistive technology. */
export function LimitMeter({ live, label, testId }: LimitMeterProps) {
  const view = meterView(live);
  return (
    <div
      className={`meter meter-${view.tone}`}
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={live.limit}
      aria-valuenow={Math.min(Math.max(0, live.used), live.limit)}
      aria-valuetext={view.text}
      data-testid={testId}
    >
      <div className="meter-fill" style={{ width: `${view.percent}%` }} />
    </div>
  );
}
