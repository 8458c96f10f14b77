import Link from 'next/link';
import { PRESET_RANGES, type TimeRange } from '@/lib/overview';

interface RangePickerProps {
  /** The page the picker changes (`/overview`, `/policies/<id>`). */
  path: string;
  range: TimeRange;
  /** Other query parameters of the page, kept by every link and the form (e.g. `min`). */
  keep?: Record<string, string>;
}

/**
 * The time range of a usage page: 1 h, 24 h, 7 d, 30 d (ending now), or a custom one in UTC. Links and a GET form:
 * the range lives in the URL, so a page can be bookmarked and shared.
 */
export function RangePicker({ path, range, keep = {} }: RangePickerProps) {
  const href = (id: string) => `${path}?${new URLSearchParams({ ...keep, range: id })}`;
  return (
    <div className="range-picker" data-testid="range-picker">
      <nav className="segmented" aria-label="Time range">
        {PRESET_RANGES.map((r) => (
          <Link key={r.id} href={href(r.id)} aria-current={range.id === r.id ? 'true' : undefined} data-testid={`range-${r.id}`}>
            {r.label}
          </Link>
        ))}
      </nav>
      <details className="range-custom" open={range.id === 'custom' || range.problem !== undefined}>
        <summary data-testid="range-custom">Custom</summary>
        <form method="get" action={path} className="range-form" aria-label="Custom time range (UTC)">
          {Object.entries(keep).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <div className="field field-compact">
            <label htmlFor="range-from">From (UTC)</label>
            <input id="range-from" name="from" type="datetime-local" className="input" defaultValue={range.fromInput} required data-testid="range-from" />
          </div>
          <div className="field field-compact">
            <label htmlFor="range-to">To (UTC)</label>
            <input id="range-to" name="to" type="datetime-local" className="input" defaultValue={range.toInput} required data-testid="range-to" />
          </div>
          <button type="submit" className="btn btn-secondary" data-testid="range-apply">
            Show
          </button>
        </form>
      </details>
      {range.problem && (
        <p className="form-alert" role="alert" data-testid="range-problem">
          {range.problem} Showing the last 24 hours.
        </p>
      )}
    </div>
  );
}
