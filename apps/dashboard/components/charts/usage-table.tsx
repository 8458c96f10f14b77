import type { UsageSeries } from '@tollgate/domain';
import { formatCount } from '@/lib/format';
import { admittedOf, bucketTitle, type ChartMarker, denyRateOf, formatRate } from '@/lib/usage-chart';

interface UsageTableProps {
  series: UsageSeries;
  markers: readonly ChartMarker[];
  caption: string;
  testId: string;
}

/**
 * The figures of the usage chart as a table, for screen readers (it is visually hidden): one row per bucket, then
 * the markers. The chart's SVG is an image with a short name; this is where its numbers are read.
 */
export function UsageTable({ series, markers, caption, testId }: UsageTableProps) {
  const { step, timeZone } = series;
  return (
    <div className="sr-only">
      <table data-testid={`${testId}-table`}>
        <caption>
          {caption}, one row per {step}
        </caption>
        <thead>
          <tr>
            <th scope="col">{step === 'day' ? 'Day' : `${step === 'minute' ? 'Minute' : 'Hour'} starting`}</th>
            <th scope="col">Allowed</th>
            <th scope="col">Denied (429)</th>
            <th scope="col">429 rate</th>
            <th scope="col">Shadow would-deny (admitted, in Allowed)</th>
            <th scope="col">Degraded</th>
            <th scope="col">Refused (no decision)</th>
          </tr>
        </thead>
        <tbody>
          {series.points.map((point) => (
            <tr key={point.at}>
              <th scope="row">{bucketTitle(point.at, step, timeZone)}</th>
              <td>{formatCount(admittedOf(point))}</td>
              <td>{formatCount(point.denied)}</td>
              <td>{formatRate(denyRateOf(point))}</td>
              <td>{formatCount(point.shadowDenied)}</td>
              <td>{formatCount(point.degraded)}</td>
              <td>{formatCount(point.refused)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {markers.length > 0 && (
        <ul aria-label="Marked on the time axis">
          {markers.map((marker) => (
            <li key={`${marker.at}-${marker.label}`}>
              {bucketTitle(marker.at, 'minute', timeZone)}: {marker.description ?? marker.label}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
