import { cookies } from 'next/headers';
import { CHART_WIDTH_COOKIE, parseChartWidth } from '@/lib/chart-width';
import { UsageChart as DrawnUsageChart, type UsageChartProps } from './usage-chart';

export type { ChartMarker, UsageChartProps } from './usage-chart';

/**
 * `UsageChart` for server components: drawn on the server at the width the browser measured last time
 * (lib/chart-width.ts), so that hydration finds the chart already at its size.
 */
export async function UsageChart(props: UsageChartProps) {
  const width = parseChartWidth((await cookies()).get(CHART_WIDTH_COOKIE)?.value);
  return <DrawnUsageChart {...props} initialWidth={width} />;
}
