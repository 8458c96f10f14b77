import Link from 'next/link';
import { notFound } from 'next/navigation';
import { ApiError, getOwnCaps, getTenant, getWebhook, listAllTenants, listWebhookDeliveries, listWebhooks, type WebhookAudience } from '@/lib/api';
import type { WebhookEndpoint } from '@/lib/api-answers';
import { formatRelativeTime, formatTimestamp } from '@/lib/format';
import { cursorTrail, type SearchPageProps, type SearchParams } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';
import { isEndpointId, localFromInstant, parseWebhookFilter, webhookPath } from '@/lib/webhooks';
import { ErrorPanel } from '../error-panel';
import { FilterForm, namedOptions } from '../filter-form';
import { EmptyState, FilteredList, ListPage, PagedList } from '../list-page';
import { MutationStatusProvider } from '../mutation-status';
import { named, namedLabel } from '../named-select';
import { PageHeading } from '../page-heading';
import { AutoRefresh } from '../usage/auto-refresh';
import { RuleVersionProvider } from '../rule-version';
import { DeliveryLog, ReplayForm } from './delivery-log';
import { EndpointStatus } from './endpoint-status';
import { NewWebhookForm } from './new-webhook-form';
import { WebhooksTable } from './webhooks-table';
import { WebhookSettings } from './webhook-settings';
import './webhooks.css';

/*
 * The webhook pages, the operator's (`admin`: every endpoint, with owners) and a tenant user's (`tenant`: its own):
 * one page each, told apart by the API routes they call. The tenant's pages have no rule set badge to keep up to
 * date: they give the mutation forms a provider of their own.
 */

const PAGE_SIZE = 50;
const DELIVERIES_PAGE_SIZE = 25;
const ENABLED_OPTIONS = [
  { value: 'true', label: 'enabled' },
  { value: 'false', label: 'disabled' },
];

function Providers({ audience, children }: { audience: WebhookAudience; children: React.ReactNode }) {
  return audience === 'tenant' ? <RuleVersionProvider current={null}>{children}</RuleVersionProvider> : children;
}

/** The list of endpoints, with "New endpoint" and (the operator's) filters by owner and state. */
export async function WebhooksListView({ audience, params }: { audience: WebhookAudience; params: SearchParams }) {
  const filter = parseWebhookFilter(params);
  const trail = cursorTrail(params);
  const loaded = await loadWithSession(async (token) => {
    const [page, tenants, cap] = await Promise.all([
      listWebhooks(token, audience, filter, trail.at(-1), PAGE_SIZE),
      audience === 'admin' ? listAllTenants(token).then((all) => all.items.map(named)) : Promise.resolve(undefined),
      // A tenant's form says how many endpoints it may still make (the operator's tenants each have their own).
      audience === 'tenant' ? getOwnCaps(token).then((caps) => caps.webhookEndpoints) : Promise.resolve(undefined),
    ]);
    return { page, tenants, cap };
  });
  const path = webhookPath(audience);
  return (
    <Providers audience={audience}>
      <ListPage
        title="Webhooks"
        description={
          audience === 'admin'
            ? 'Where Tollgate sends its events (quota thresholds, denied rates, platform health), signed by Standard Webhooks: your endpoints and your tenants’.'
            : 'Where Tollgate sends your quota’s events (a limit nearly used up, its window reset), signed by Standard Webhooks.'
        }
        loaded={loaded}
      >
        {({ page, tenants, cap }) => (
          <>
            <NewWebhookForm audience={audience} tenants={tenants} cap={cap} />
            <FilterForm
              path={path}
              label="Filter endpoints"
              testPrefix="webhook"
              params={params}
              filters={[
                ...(tenants
                  ? [{ name: 'owner', label: 'Owner', options: [{ value: 'operator', label: 'Operator' }, ...namedOptions(tenants)] }]
                  : []),
                { name: 'enabled', label: 'Status', options: ENABLED_OPTIONS },
              ]}
            />
            <FilteredList
              page={page}
              trail={trail}
              path={path}
              params={params}
              testId="webhooks-empty"
              noun={{ one: 'endpoint', many: 'endpoints' }}
              nothingYet="No endpoints yet. Add one with “New endpoint” above: the URL of a receiver of yours, and the events it should get. Then send it a test event from its page."
            >
              <WebhooksTable audience={audience} endpoints={page.items} tenantNames={tenants && new Map(tenants.map((t) => [t.id, namedLabel(t)]))} />
            </FilteredList>
          </>
        )}
      </ListPage>
    </Providers>
  );
}

/** What Next hands an endpoint's page (`…/webhooks/<endpointId>`). */
export interface EndpointPageProps extends SearchPageProps {
  params: Promise<{ endpointId: string }>;
}

/**
 * One endpoint, the operator's or a tenant's own (another tenant's is not found, as is an id that cannot be one): its
 * settings and secret, and its delivery log with Resend and "Replay a range".
 */
export async function WebhookEndpointView({ audience, params, searchParams }: EndpointPageProps & { audience: WebhookAudience }) {
  const { endpointId } = await params;
  if (!isEndpointId(endpointId)) notFound();
  const trail = cursorTrail(await searchParams);
  const loaded = await loadWithSession(async (token) => {
    let endpoint: WebhookEndpoint;
    try {
      endpoint = await getWebhook(token, audience, endpointId);
    } catch (error) {
      // An unknown id (or another tenant's) is the API's 404: the page is not found, not failed.
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
    const deliveries = await listWebhookDeliveries(token, audience, endpointId, trail.at(-1), DELIVERIES_PAGE_SIZE);
    // The owner's name is informative: a failing tenant read must not take the page down.
    const tenant = audience === 'admin' && endpoint.tenantId ? await getTenant(token, endpoint.tenantId).catch(() => undefined) : undefined;
    return { endpoint, deliveries, owner: ownerOf(audience, endpoint, tenant) };
  });
  const back = (
    <Link href={webhookPath(audience)} className="btn btn-secondary btn-sm" data-testid="webhook-back">
      ← All endpoints
    </Link>
  );
  if (loaded.ok && loaded.data === null) notFound();
  if (!loaded.ok || loaded.data === null) {
    return (
      <>
        <PageHeading title="Webhook endpoint" description="An endpoint’s settings and delivery log.">
          {back}
        </PageHeading>
        {!loaded.ok && <ErrorPanel problem={loaded.problem} />}
      </>
    );
  }
  const { endpoint, deliveries, owner } = loaded.data;
  const now = Date.now();
  return (
    <Providers audience={audience}>
      <PageHeading
        title={endpoint.channel === 'email' ? 'E-mail endpoint' : 'Webhook endpoint'}
        subject={{ text: endpoint.email ?? endpoint.url, testId: 'webhook-heading-target' }}
        description={endpoint.description || (endpoint.channel === 'email' ? 'Its settings and every message sent to it.' : 'Its settings, its signing secret and every delivery to it.')}
      >
        {back}
      </PageHeading>
      <MutationStatusProvider>
        <div className="plan-grid">
          <WebhookSettings audience={audience} endpoint={endpoint}>
            <EndpointFacts endpoint={endpoint} owner={owner} now={now} />
          </WebhookSettings>
          <section className="webhook-log" aria-labelledby="webhook-log-title">
            <div className="card">
              <header className="plan-card-header">
                <h2 id="webhook-log-title">Delivery log</h2>
                <span className="tenant-count">Newest first. Open a delivery for its attempts.</span>
                <AutoRefresh />
              </header>
              <div className="webhook-log-tools">
                <ReplayForm audience={audience} endpointId={endpoint.id} from={localFromInstant(now - 86_400_000)} to={localFromInstant(now + 60_000)} />
              </div>
            </div>
            <PagedList
              page={deliveries}
              trail={trail}
              basePath={webhookPath(audience, endpoint.id)}
              empty={
                <EmptyState testId="webhook-deliveries-empty">
                  No deliveries yet. Use “Send test event” above to try your receiver; the events it is subscribed to show here as
                  they are sent.
                </EmptyState>
              }
            >
              <DeliveryLog audience={audience} endpointId={endpoint.id} deliveries={deliveries.items} />
            </PagedList>
          </section>
        </div>
      </MutationStatusProvider>
    </Providers>
  );
}

function ownerOf(audience: WebhookAudience, endpoint: WebhookEndpoint, tenant: { id: string; name: string; slug: string } | undefined) {
  if (audience === 'tenant') return { label: 'Your tenant' };
  if (endpoint.tenantId === null) return { label: 'Operator' };
  return { label: tenant ? `${tenant.name} (${tenant.slug})` : 'a tenant', href: `/tenants/${encodeURIComponent(endpoint.tenantId)}` };
}

function EndpointFacts({ endpoint, owner, now }: { endpoint: WebhookEndpoint; owner: { label: string; href?: string }; now: number }) {
  const when = (iso: string) => <span title={formatRelativeTime(iso, now)}>{formatTimestamp(iso)}</span>;
  return (
    <dl className="facts webhook-facts">
      <div className="webhook-facts-url">
        <dt>{endpoint.channel === 'email' ? 'E-mail address' : 'URL'}</dt>
        <dd>
          <code className="webhook-url" data-testid="webhook-url">
            {endpoint.email ?? endpoint.url}
          </code>
        </dd>
      </div>
      <div>
        <dt>Owner</dt>
        <dd data-testid="webhook-owner">{owner.href ? <Link href={owner.href}>{owner.label}</Link> : owner.label}</dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd>
          <EndpointStatus endpoint={endpoint} />
        </dd>
      </div>
      <div>
        <dt>Failing since</dt>
        <dd className={endpoint.failingSince ? 'webhook-failing' : undefined}>{endpoint.failingSince ? when(endpoint.failingSince) : 'not failing'}</dd>
      </div>
      <div className="webhook-facts-types">
        <dt>Event types</dt>
        <dd className="chip-list" data-testid="webhook-event-types">
          {endpoint.eventTypes.map((type) => (
            <span key={type} className="chip">
              {type}
            </span>
          ))}
        </dd>
      </div>
      {endpoint.previousSecretExpiresAt && Date.parse(endpoint.previousSecretExpiresAt) > now && (
        <div>
          <dt>Old secret signed until</dt>
          <dd data-testid="webhook-previous-secret">{formatTimestamp(endpoint.previousSecretExpiresAt)}</dd>
        </div>
      )}
      <div>
        <dt>Created</dt>
        <dd>{when(endpoint.createdAt)}</dd>
      </div>
    </dl>
  );
}
