import type { Metadata } from 'next';
import Link from 'next/link';
import { AlertRulesTable } from '@/components/alerts/alert-rules-table';
import { AlertHistory } from '@/components/alerts/alert-history';
import { NewAlertRuleForm } from '@/components/alerts/new-alert-rule-form';
import { namedFilter } from '@/components/filter-form';
import { EmptyState, ListPage } from '@/components/list-page';
import { MutationStatus } from '@/components/mutation-status';
import { named, namedLabel } from '@/components/named-select';
import { AutoRefresh } from '@/components/usage/auto-refresh';
import { ALERTS_PATHS, KIND_LABELS, parseAlertFilter } from '@/lib/alerts';
import { listAlertRules, listAlerts, listAllTenants, listPlans } from '@/lib/api';
import { ALERT_KINDS } from '@/lib/api-answers';
import { listQuery, type SearchPageProps } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Alerts' };

const PAGE_SIZE = 50;
const PATH = ALERTS_PATHS.admin;

/** The alert history (filtered by state, rule, tenant, kind and when they started), and the rules that raise alerts. */
export default async function AlertsPage({ searchParams }: SearchPageProps) {
  const { params, filter, trail } = await listQuery(searchParams, parseAlertFilter);
  const loaded = await loadWithSession(async (token) => {
    const [page, rules, tenants, plans] = await Promise.all([listAlerts(token, 'admin', filter, trail.at(-1), PAGE_SIZE), listAlertRules(token), listAllTenants(token), listPlans(token)]);
    // Only what the selects and the names need travels to the browser.
    return { page, rules, tenants: tenants.items.map(named), plans: plans.map(named) };
  });

  return (
    <ListPage
      title="Alerts"
      description="What Tollgate noticed (a quota nearly used up, a tenant refused too often, checks decided without Redis), and the rules that watch for it. Alerts are sent to the webhook endpoints subscribed to their events."
      heading={<AutoRefresh everyMs={15_000} />}
      loaded={loaded}
    >
      {({ page, rules, tenants, plans }) => {
        const tenantNames = new Map(tenants.map((t) => [t.id, namedLabel(t)]));
        const names = new Map([...plans.map((p) => [p.id, namedLabel(p)] as const), ...tenantNames]);
        return (
          <>
            <h2 className="section-heading" id="alerts-history">
              History
            </h2>
            <MutationStatus statusKey="alerts" className="restore-status" />
            <AlertHistory
              canAcknowledge
              path={PATH}
              params={params}
              page={page}
              trail={trail}
              filters={[
                { name: 'ruleId', label: 'Rule', options: rules.map((r) => ({ value: r.id, label: r.name })) },
                namedFilter('tenantId', 'Tenant', tenants),
                { name: 'kind', label: 'Kind', options: ALERT_KINDS.map((k) => ({ value: k, label: KIND_LABELS[k] })) },
              ]}
              names={{ rules: new Map(rules.map((r) => [r.id, r.name])), tenants: tenantNames }}
              empty={
                rules.length === 0
                  ? 'No alerts yet, and no rule to raise one: create a rule with “New alert rule” below.'
                  : 'No alerts yet: none of the rules below has seen its condition.'
              }
            />
            <h2 className="section-heading" id="alerts-rules">
              Rules
            </h2>
            <NewAlertRuleForm plans={plans} tenants={tenants} />
            <MutationStatus statusKey="alert-rules" className="restore-status" />
            {rules.length === 0 ? (
              <EmptyState testId="alert-rules-empty">
                No alert rules yet. Create one with “New alert rule” above, then subscribe a webhook endpoint to its events on the{' '}
                <Link href="/webhooks">Webhooks</Link> page.
              </EmptyState>
            ) : (
              <AlertRulesTable rules={rules} names={names} />
            )}
          </>
        );
      }}
    </ListPage>
  );
}
