'use client';

import { AxisBottom, AxisLeft, AxisRight } from '@visx/axis';
import { localPoint } from '@visx/event';
import { GridRows } from '@visx/grid';
import { Group } from '@visx/group';
import { scaleLinear, scaleUtc } from '@visx/scale';
import { Area, Line, LinePath } from '@visx/shape';
import { TooltipWithBounds, useTooltip } from '@visx/tooltip';
import type { UsageSeries } from '@tollgate/domain';
import { type PointerEvent, useMemo } from 'react';
import { rememberChartWidth } from '@/lib/chart-width';
import { formatCount } from '@/lib/format';
import {
  admittedOf,
  axisTicks,
  bucketLabel,
  bucketTitle,
  type ChartMarker,
  decisionsOf,
  denyRateOf,
  formatRate,
  markersInRange,
  rateAxisMax,
  stepMs,
  type UsagePoint,
} from '@/lib/usage-chart';
import './charts.css';
import { UsageTable } from './usage-table';
import { useWidth } from './use-width';

export type { ChartMarker } from '@/lib/usage-chart';

/**
 * The props of `UsageChart`, kept stable for every page that draws usage (operator overview, policy, tenant pages):
 *
 * - `series` (required): the API's answer of `GET /v1/admin/usage` or `GET /v1/tenant/usage` as the dashboard's
 *   client parsed it (`UsageSeries`, inferred from `usageSeriesSchema` in libs/domain). It is drawn as it is: the
 *   API picks the step and fills empty buckets with zeros; only each bucket's 429 rate (denied / (allowed + denied))
 *   is worked out here, as the API leaves it to its readers.
 * - `title` (required): the chart's accessible name (the SVG's `aria-label`) and the caption of its table.
 * - `markers` (optional): vertical lines on the time axis with a short label, e.g. the rule set versions published
 *   in the range (`{ at: createdAt, label: 'v12', description: 'Rule set v12 published by …' }`); those outside
 *   the series' range are left out, and labels that would overlap are dropped (the lines and the table keep them).
 * - `height` (optional): of the drawing, in px; 260 by default. The width is the container's (420 px and up).
 * - `testId` (optional): prefix of the `data-testid`s (`<testId>`, `<testId>-table`, `<testId>-tooltip`); `usage-chart`.
 *
 * Decisions per bucket are stacked areas on the left axis: allowed (with the shadow would-denies, which were
 * admitted too), degraded (decided without Redis; drawn only when there are some) and denied (429) on top. Refused
 * checks (no decision: a bad key, a suspended tenant) are a dashed line of their own on the same axis, when there are
 * some. The 429 rate, denied over all decisions, is a line on the right axis. A visually hidden table holds every figure for
 * screen readers.
 */
export interface UsageChartProps {
  series: UsageSeries;
  title: string;
  markers?: readonly ChartMarker[];
  height?: number;
  testId?: string;
  /** The width to draw at before the browser has measured (server-usage-chart.tsx passes the last one measured). */
  initialWidth?: number;
}

const MARGIN = { top: 22, right: 46, bottom: 28, left: 48 };
/** What the server render draws at when the browser's width is not known yet. */
const INITIAL_WIDTH = 960;
/** The least room between two marker labels, in px: closer ones keep their line and lose their label. */
const MARKER_LABEL_GAP = 30;

interface Bucket {
  point: UsagePoint;
  /** The bucket's end: the next one's start, or the range's end. */
  end: string;
}

const time = (at: string) => new Date(at);
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

export function UsageChart({ series, title, markers = [], height = 260, testId = 'usage-chart', initialWidth = INITIAL_WIDTH }: UsageChartProps) {
  const [ref, width] = useWidth<HTMLDivElement>(initialWidth, rememberChartWidth);
  const { tooltipOpen, tooltipData, tooltipLeft, tooltipTop, showTooltip, hideTooltip } = useTooltip<Bucket>();
  const { points, step, timeZone } = series;
  const innerWidth = Math.max(1, width - MARGIN.left - MARGIN.right);
  const innerHeight = Math.max(1, height - MARGIN.top - MARGIN.bottom);

  const shown = useMemo(() => markersInRange(markers, series.from, series.to), [markers, series.from, series.to]);
  // Each bucket is flat from its start to the next one's (or the range's end): two corners each.
  const drawn = useMemo(() => stepCorners(points, series.to), [points, series.to]);

  // The first bucket may start before the range (an hour or a day that holds `from`): the axis starts with it.
  const start = points.length > 0 && points[0]!.at < series.from ? points[0]!.at : series.from;
  const x = scaleUtc({ domain: [time(start), time(series.to)], range: [0, innerWidth] });
  // Refused checks are drawn on the same axis, as a line of their own: they are not decisions.
  const highest = Math.max(1, ...points.map(decisionsOf), ...points.map((p) => p.refused));
  const y = scaleLinear({ domain: [0, highest], range: [innerHeight, 0], nice: true });
  // Decisions are whole: a scale up to 2 would otherwise be ruled at 0.5, 1, 1.5.
  const countTicks = y.ticks(4).filter((v) => Number.isInteger(v));
  const rateMax = rateAxisMax(points);
  const yRate = scaleLinear({ domain: [0, rateMax], range: [innerHeight, 0] });
  const ticks = axisTicks(points, step, innerWidth).map(time);

  const hasDegraded = points.some((p) => p.degraded > 0);
  const hasRefused = points.some((p) => p.refused > 0);
  const labels = markerLabels(shown.map((m) => ({ x: x(time(m.at)), label: m.label })));

  const onPointer = (event: PointerEvent<SVGRectElement>) => {
    const at = localPoint(event);
    if (!at || points.length === 0) return;
    const t = x.invert(at.x - MARGIN.left).getTime();
    const index = bucketIndexAt(points, t);
    const point = points[index]!;
    showTooltip({
      tooltipData: { point, end: points[index + 1]?.at ?? series.to },
      tooltipLeft: MARGIN.left + x(time(point.at)),
      tooltipTop: at.y,
    });
  };

  const refused = points.reduce((sum, p) => sum + p.refused, 0);
  const summary = `${title}: ${formatCount(points.reduce((sum, p) => sum + admittedOf(p), 0))} allowed and ${formatCount(
    points.reduce((sum, p) => sum + p.denied, 0),
  )} denied${refused > 0 ? `, ${formatCount(refused)} refused without a decision` : ''}, per ${step}. The figures are in the table that follows.`;

  return (
    <figure className="usage-chart" data-testid={testId}>
      <div ref={ref} className="usage-chart-plot">
        <svg
          width="100%"
          height={height}
          viewBox={`0 0 ${width} ${height}`}
          role="img"
          aria-label={summary}
          className="usage-chart-svg"
        >
          <Group left={MARGIN.left} top={MARGIN.top}>
            <GridRows scale={y} width={innerWidth} tickValues={countTicks} className="chart-grid" />
            {/* Stacked: admitted, then degraded (decided without Redis), then denied on top. */}
            <Area<Corner> data={drawn} x={(c) => x(time(c.at))} y0={() => y(0)} y1={(c) => y(admittedOf(c.point))} className="chart-allowed" />
            {hasDegraded && (
              <Area<Corner>
                data={drawn}
                x={(c) => x(time(c.at))}
                y0={(c) => y(admittedOf(c.point))}
                y1={(c) => y(admittedOf(c.point) + c.point.degraded)}
                className="chart-degraded"
              />
            )}
            <Area<Corner>
              data={drawn}
              x={(c) => x(time(c.at))}
              y0={(c) => y(admittedOf(c.point) + c.point.degraded)}
              y1={(c) => y(decisionsOf(c.point))}
              className="chart-denied"
            />
            {hasRefused && (
              <LinePath<Corner> data={drawn} x={(c) => x(time(c.at))} y={(c) => y(c.point.refused)} className="chart-refused" data-testid={`${testId}-refused`} />
            )}
            <LinePath<UsagePoint>
              data={points}
              x={(p) => x(time(p.at)) + bucketWidth(x, step) / 2}
              y={(p) => yRate(denyRateOf(p) ?? 0)}
              defined={(p) => denyRateOf(p) !== null}
              className="chart-rate"
            />
            {/* A bucket with decisions between two without draws no line: a dot instead. */}
            {points.map((p, i) =>
              isolated(points, i) ? (
                <circle key={p.at} cx={x(time(p.at)) + bucketWidth(x, step) / 2} cy={yRate(denyRateOf(p) ?? 0)} r={3} className="chart-rate-dot" />
              ) : null,
            )}
            {shown.map((marker, i) => {
              const mx = x(time(marker.at));
              return (
                <g key={`${marker.at}-${marker.label}`} className="chart-marker" data-testid={`${testId}-marker`}>
                  <Line from={{ x: mx, y: 0 }} to={{ x: mx, y: innerHeight }} />
                  {labels[i] && (
                    <text x={Math.min(Math.max(mx, 16), innerWidth - 16)} y={-8} textAnchor="middle">
                      {labels[i]}
                    </text>
                  )}
                </g>
              );
            })}
            {tooltipOpen && tooltipData && (
              <Line
                from={{ x: (tooltipLeft ?? 0) - MARGIN.left, y: 0 }}
                to={{ x: (tooltipLeft ?? 0) - MARGIN.left, y: innerHeight }}
                className="chart-guide"
              />
            )}
            <g aria-hidden="true">
              <AxisLeft
                scale={y}
                tickValues={countTicks}
                tickFormat={(v) => compact.format(Number(v))}
                axisClassName="chart-axis"
                hideAxisLine
                hideTicks
              />
              <AxisRight
                scale={yRate}
                left={innerWidth}
                numTicks={3}
                tickFormat={(v) => formatRate(Number(v))}
                axisClassName="chart-axis chart-axis-rate"
                hideAxisLine
                hideTicks
              />
              <AxisBottom
                scale={x}
                top={innerHeight}
                tickValues={ticks}
                tickFormat={(v) => bucketLabel((v as Date).toISOString(), step, timeZone)}
                axisClassName="chart-axis"
              />
            </g>
            <rect
              width={innerWidth}
              height={innerHeight}
              fill="transparent"
              onPointerMove={onPointer}
              onPointerDown={onPointer}
              onPointerLeave={hideTooltip}
            />
          </Group>
        </svg>
        {tooltipOpen && tooltipData && (
          <TooltipWithBounds left={tooltipLeft} top={tooltipTop} className="chart-tooltip" unstyled applyPositionStyle>
            <BucketDetails bucket={tooltipData} series={series} markers={shown} testId={testId} />
          </TooltipWithBounds>
        )}
      </div>
      <figcaption className="chart-legend" aria-hidden="true">
        <span className="legend-item legend-allowed">Allowed</span>
        {hasDegraded && <span className="legend-item legend-degraded">Degraded (no Redis)</span>}
        <span className="legend-item legend-denied">Denied (429)</span>
        <span className="legend-item legend-rate">429 rate (right axis)</span>
        {hasRefused && <span className="legend-item legend-refused">Refused (no decision)</span>}
        {shown.length > 0 && <span className="legend-item legend-marker">Rule set published</span>}
      </figcaption>
      <UsageTable series={series} markers={shown} caption={title} testId={testId} />
    </figure>
  );
}

function BucketDetails({ bucket, series, markers, testId }: { bucket: Bucket; series: UsageSeries; markers: ChartMarker[]; testId: string }) {
  const { point, end } = bucket;
  const within = markers.filter((m) => m.at >= point.at && m.at < end);
  return (
    <div data-testid={`${testId}-tooltip`}>
      <strong>{bucketTitle(point.at, series.step, series.timeZone)}</strong>
      <dl>
        <dt>Allowed</dt>
        <dd>{formatCount(admittedOf(point))}</dd>
        <dt>Denied (429)</dt>
        <dd>{formatCount(point.denied)}</dd>
        <dt>429 rate</dt>
        <dd>{formatRate(denyRateOf(point))}</dd>
        {point.shadowDenied > 0 && (
          <>
            <dt>incl. shadow would-deny</dt>
            <dd>{formatCount(point.shadowDenied)}</dd>
          </>
        )}
        {point.degraded > 0 && (
          <>
            <dt>Degraded</dt>
            <dd>{formatCount(point.degraded)}</dd>
          </>
        )}
        {point.refused > 0 && (
          <>
            <dt>Refused (no decision)</dt>
            <dd>{formatCount(point.refused)}</dd>
          </>
        )}
      </dl>
      {within.map((m) => (
        <p key={`${m.at}-${m.label}`}>{m.description ?? m.label}</p>
      ))}
    </div>
  );
}

interface Corner {
  at: string;
  point: UsagePoint;
}

function stepCorners(points: readonly UsagePoint[], to: string): Corner[] {
  return points.flatMap((point, i) => [
    { at: point.at, point },
    { at: points[i + 1]?.at ?? to, point },
  ]);
}

/** The bucket a time falls in: the last one starting at or before it (buckets are in order, oldest first). */
function bucketIndexAt(points: readonly UsagePoint[], t: number): number {
  let low = 0;
  let high = points.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (Date.parse(points[mid]!.at) <= t) low = mid;
    else high = mid - 1;
  }
  return low;
}

function bucketWidth(x: (d: Date) => number, step: UsageSeries['step']): number {
  return x(new Date(stepMs(step))) - x(new Date(0));
}

/**
 * The label drawn at each marker, oldest first: markers closer than MARKER_LABEL_GAP px to the first of their group
 * share one label at it ("v3–v7"); the others draw their line only (the tooltip and the table name each).
 */
function markerLabels(markers: { x: number; label: string }[]): (string | null)[] {
  const labels: (string | null)[] = markers.map(() => null);
  let first = -1;
  markers.forEach((m, i) => {
    if (first >= 0 && m.x - markers[first]!.x < MARKER_LABEL_GAP) {
      labels[first] = `${markers[first]!.label}–${m.label}`;
      return;
    }
    first = i;
    labels[i] = m.label;
  });
  return labels;
}

function isolated(points: readonly UsagePoint[], i: number): boolean {
  const has = (j: number) => j >= 0 && j < points.length && denyRateOf(points[j]!) !== null;
  return has(i) && !has(i - 1) && !has(i + 1);
}
