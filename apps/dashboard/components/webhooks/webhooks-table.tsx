import Link from 'next/link';
import type { WebhookEndpoint } from '@/lib/api-answers';
import type { WebhookAudience } from '@/lib/api-webhooks';
import { formatRelativeTime, formatTimestamp } from '@/lib/format';
import { webhookOwner, webhookPath } from '@/lib/webhooks';
import { DataTable } from '../data-table';
import { EndpointStatus } from './endpoint-status';

interface WebhooksTableProps {
  audience: WebhookAudience;
  endpoints: readonly WebhookEndpoint[];
  /** The operator's table: each endpoint's owner, a tenant by name. */
  tenantNames?: ReadonlyMap<string, string>;
}

/** Endpoints, each leading to its page (settings, secret, delivery log). */
export function WebhooksTable({ audience, endpoints, tenantNames }: WebhooksTableProps) {
  return (
    <DataTable testId="webhooks-table" columns={['Endpoint', tenantNames !== undefined && 'Owner', 'Events', 'Status', 'Failing']}>
      {endpoints.map((endpoint) => (
        <tr key={endpoint.id} data-testid={`webhook-row-${endpoint.id}`}>
          <td className="webhook-url-cell">
            <Link href={webhookPath(audience, endpoint.id)} className="webhook-url" data-testid={`webhook-link-${endpoint.id}`}>
              {endpoint.email ?? endpoint.url}
            </Link>
            {endpoint.channel === 'email' && <span className="chip">e-mail</span>}
            {endpoint.description && <div className="muted webhook-description">{endpoint.description}</div>}
          </td>
          {tenantNames !== undefined && <td>{webhookOwner(endpoint, tenantNames)}</td>}
          <td>
            <span className="chip-list">
              {endpoint.eventTypes.map((type) => (
                <span key={type} className="chip">
                  {type}
                </span>
              ))}
            </span>
          </td>
          <td>
            <EndpointStatus endpoint={endpoint} />
          </td>
          <td title={endpoint.failingSince ? formatTimestamp(endpoint.failingSince) : undefined} className={endpoint.failingSince ? 'webhook-failing' : 'muted'}>
            {endpoint.failingSince ? formatRelativeTime(endpoint.failingSince) : '—'}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
