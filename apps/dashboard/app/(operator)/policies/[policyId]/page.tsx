import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { UsageChart } from '@/components/charts/server-usage-chart';
import { TableCard } from '@/components/data-table';
import { ErrorPanel } from '@/components/error-panel';
import { PageHeading } from '@/components/page-heading';
import { AutoRefresh } from '@/components/usage/auto-refresh';
import { RangePicker } from '@/components/usage/range-picker';
import { UsageTotalsTiles } from '@/components/usage/usage-totals';
import { WouldDenyPreview } from '@/components/usage/would-deny-preview';
import '@/components/usage/usage.css';
import { getPolicy, getUsage, getWouldDeny, listRuleSetsBetween } from '@/lib/api';
import type { Policy } from '@/lib/api-answers';
import { formatAlgorithm, formatCount, formatRate } from '@/lib/format';
import { parseRange, previousRange, ruleSetMarkers, totalsOf } from '@/lib/overview';
import type { SearchParams } from '@/lib/pagination';
import { FAILURE_MODE_LABELS, ownerLabel, REGION_SCOPE_LABELS, REPLICA_ACK_LABELS, SCOPE_LABELS } from '@/lib/policies';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Policy' };

const POLICY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface PolicyPageProps {
  params: Promise<{ policyId: string }>;
  searchParams: Promise<SearchParams>;
}

/** One endpoint policy: its usage over a range, its limits, and in shadow mode what enforcing it would refuse. */
export default async function PolicyPage({ params, searchParams }: PolicyPageProps) {
  const { policyId } = await params;
  if (!POLICY_ID.test(policyId)) notFound();
  const range = parseRange(await searchParams);
  const loaded = await loadWithSession(async (token) => {
    const policy = await getPolicy(token, policyId);
    const [series, previous, versions, preview] = await Promise.all([
      getUsage(token, range, { policy: policy.id }),
      getUsage(token, previousRange(range), { policy: policy.id }),
      listRuleSetsBetween(token, range.from, range.to),
      policy.mode === 'shadow' ? getWouldDeny(token, policy.id, range) : Promise.resolve(null),
    ]);
    return { policy, series, previous, versions, preview };
  });

  if (!loaded.ok) {
    return (
      <>
        <PageHeading title="Policy" description="An endpoint policy's usage and limits." />
        <ErrorPanel problem={loaded.problem} />
      </>
    );
  }
  const { policy, series, previous, versions, preview } = loaded.data;
  const route = `${policy.method} ${policy.pattern}`;
  return (
    <>
      <PageHeading title={route} description={`Policy ${policy.name} of ${ownerLabel(policy)}: its decisions over the range and its limits.`}>
        {range.live && <AutoRefresh />}
      </PageHeading>
      <RangePicker path={`/policies/${encodeURIComponent(policy.id)}`} range={range} />
      <div className="usage-page" data-testid="policy-page">
        <PolicyFacts policy={policy} />
        {preview && <WouldDenyPreview preview={preview} route={route} />}
        <UsageTotalsTiles current={totalsOf(series)} previous={totalsOf(previous)} testId="policy-totals" refused={false} />
        <section className="card usage-chart-card" aria-labelledby="policy-chart-title">
          <h2 id="policy-chart-title" className="card-title">
            Allowed and denied, per {series.step}
          </h2>
          <UsageChart series={series} title={`Decisions of ${route} per ${series.step}`} markers={ruleSetMarkers(versions)} testId="policy-chart" />
        </section>
        <PolicyLimitsSummary policy={policy} />
      </div>
    </>
  );
}

function PolicyFacts({ policy }: { policy: Policy }) {
  return (
    <section className="card" aria-label="Settings">
      <dl className="facts">
        <div>
          <dt>Mode</dt>
          <dd>
            <span className={`badge badge-mode-${policy.mode}`} data-testid="policy-page-mode">
              {policy.mode}
            </span>
          </dd>
        </div>
        <div>
          <dt>Owner</dt>
          <dd>
            {policy.tenant ? <Link href={`/tenants/${encodeURIComponent(policy.tenant.id)}`}>{ownerLabel(policy)}</Link> : ownerLabel(policy)}
          </dd>
        </div>
        <div>
          <dt>Counted per</dt>
          <dd>{SCOPE_LABELS[policy.scope]}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatCount(policy.cost)}</dd>
        </div>
        <div>
          <dt>Without Redis</dt>
          <dd>{FAILURE_MODE_LABELS[policy.failureMode]}</dd>
        </div>
        <div>
          <dt>Answer</dt>
          <dd data-testid="policy-replica-ack">{REPLICA_ACK_LABELS[policy.replicaAck ? 'replica' : 'at_once']}</dd>
        </div>
        <div>
          <dt>Quota holds</dt>
          <dd data-testid="policy-region-scope">{REGION_SCOPE_LABELS[policy.regionScope]}</dd>
        </div>
      </dl>
    </section>
  );
}

function PolicyLimitsSummary({ policy }: { policy: Policy }) {
  // The policies page filtered to this policy's owner (its `owner` filter), where its card edits it.
  const filter = new URLSearchParams(policy.plan ? { owner: `plan:${policy.plan.id}` } : policy.tenant ? { owner: `tenant:${policy.tenant.id}` } : {});
  return (
    <TableCard
      title="Limits"
      testId="policy-page-limits"
      columns={['Name', 'Rate', 'Algorithm']}
      empty={policy.limits.length === 0 ? 'No limits: the policy only sets the cost of its requests.' : null}
      footer={
        <p className="muted card-empty">
          <Link href={`/policies?${filter}`} data-testid="policy-page-edit">
            Change the limits and settings on the policies page
          </Link>
        </p>
      }
    >
      {policy.limits.map((limit) => (
        <tr key={limit.id}>
          <td>{limit.name}</td>
          <td>{formatRate(limit)}</td>
          <td>{formatAlgorithm(limit.algorithm)}</td>
        </tr>
      ))}
    </TableCard>
  );
}
