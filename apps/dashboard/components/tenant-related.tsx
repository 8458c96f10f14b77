import Link from 'next/link';
import type { ReactNode } from 'react';
import type { Account, ApiKey, Policy } from '@/lib/api-answers';
import { keyStatus } from '@/lib/keys';
import type { Loaded } from '@/lib/session';
import { ErrorPanel } from './error-panel';
import './tenant-related.css';

interface TenantRelatedProps {
  tenant: { id: string; slug: string };
  plan: { id: string; slug: string };
  /** The tenant's own policies, then its plan's; `more`: either list went past its first page. */
  policies: Loaded<{ own: Policy[]; plan: Policy[]; more: boolean }>;
  keys: Loaded<ApiKey[]>;
  /** The active service keys that may check it. */
  serviceKeys: Loaded<ApiKey[]>;
  users: Loaded<{ items: Account[]; more: boolean }>;
}

/** What else belongs to a tenant: the endpoint policies it is held to, its API keys, the service keys that may check it, its dashboard users. */
export function TenantRelated({ tenant, plan, policies, keys, serviceKeys, users }: TenantRelatedProps) {
  const now = Date.now();
  return (
    <div className="related-grid">
      <RelatedCard
        id="tenant-policies"
        title="Endpoint policies"
        link={{ href: `/policies?${new URLSearchParams({ owner: `tenant:${tenant.id}` })}`, label: 'Manage' }}
        loaded={policies}
      >
        {({ own, plan: planPolicies, more }) =>
          own.length + planPolicies.length === 0 ? (
            <Empty>
              No endpoint policies: every route costs 1. <Link href="/policies">Add one in Policies</Link>.
            </Empty>
          ) : (
            <ul className="related-list">
              {[...own, ...planPolicies].map((policy) => (
                <li key={policy.id} data-testid={`tenant-policy-${policy.name}`}>
                  <code className="break">
                    {policy.method} {policy.pattern}
                  </code>
                  <span className="related-meta">
                    <span className={`badge badge-mode-${policy.mode}`}>{policy.mode}</span>
                    {policy.tenant ? (
                      <span className="muted">own</span>
                    ) : (
                      <Link href={`/policies?${new URLSearchParams({ owner: `plan:${plan.id}` })}`}>plan {plan.slug}</Link>
                    )}
                  </span>
                </li>
              ))}
              {more && <li className="muted">More in Policies.</li>}
            </ul>
          )
        }
      </RelatedCard>
      <RelatedCard id="tenant-keys" title="API keys" link={{ href: '/keys?kind=tenant', label: 'Manage' }} loaded={keys}>
        {(items) =>
          items.length === 0 ? (
            <Empty>
              No keys yet: <Link href="/keys?kind=tenant">create a tenant key</Link> for {tenant.slug}.
            </Empty>
          ) : (
            <KeyItems keys={items} now={now} testId="tenant-key" />
          )
        }
      </RelatedCard>
      <RelatedCard id="tenant-service-keys" title="Service keys that may check it" link={{ href: '/keys?kind=service', label: 'Manage' }} loaded={serviceKeys}>
        {(items) =>
          items.length === 0 ? (
            <Empty>
              No service key may check {tenant.slug}: <Link href="/keys?kind=service">create one</Link> for its gateway.
            </Empty>
          ) : (
            <KeyItems
              keys={items}
              now={now}
              testId="tenant-service-key"
              scope={(key) => (key.allTenants ? 'all tenants' : key.tenants.length === 1 ? 'this tenant only' : `${key.tenants.length} tenants`)}
            />
          )
        }
      </RelatedCard>
      <RelatedCard id="tenant-users" title="Users" link={{ href: `/users?${new URLSearchParams({ tenantId: tenant.id })}`, label: 'Manage' }} loaded={users}>
        {({ items, more }) =>
          items.length === 0 ? (
            <Empty>
              No users: <Link href="/users">add a tenant user</Link> to let {tenant.slug} see its usage.
            </Empty>
          ) : (
            <ul className="related-list">
              {items.map((user) => (
                <li key={user.id} data-testid={`tenant-user-${user.email}`}>
                  <span className="break">{user.email}</span>
                  <span className="related-meta muted">{user.name}</span>
                </li>
              ))}
              {more && <li className="muted">More in Users.</li>}
            </ul>
          )
        }
      </RelatedCard>
    </div>
  );
}

interface RelatedCardProps<T> {
  id: string;
  title: string;
  link: { href: string; label: string };
  loaded: Loaded<T>;
  children: (data: T) => ReactNode;
}

function RelatedCard<T>({ id, title, link, loaded, children }: RelatedCardProps<T>) {
  return (
    <section className="card" aria-labelledby={`${id}-title`} data-testid={id}>
      <header className="plan-card-header">
        <h2 id={`${id}-title`}>{title}</h2>
        <Link href={link.href} className="tenant-count" aria-label={`${link.label} ${title.toLowerCase()}`}>
          {link.label} →
        </Link>
      </header>
      {loaded.ok ? children(loaded.data) : <ErrorPanel problem={loaded.problem} action={null} />}
    </section>
  );
}

/** Keys by name, each with its prefix, what it may check (`scope`, a service key's) and its status now. */
function KeyItems({ keys, now, testId, scope }: { keys: ApiKey[]; now: number; testId: string; scope?: (key: ApiKey) => string }) {
  return (
    <ul className="related-list">
      {keys.map((key) => {
        const status = keyStatus(key, now);
        return (
          <li key={key.id} data-testid={`${testId}-${key.id}`}>
            <span className="break">{key.name}</span>
            <span className="related-meta">
              <code>{key.prefix}…</code>
              {scope && <span className="muted">{scope(key)}</span>}
              <span className={`badge badge-${status}`}>{status}</span>
            </span>
          </li>
        );
      })}
    </ul>
  );
}

function Empty({ children }: { children: ReactNode }) {
  return <p className="panel muted">{children}</p>;
}
