import type { Metadata } from 'next';
import { WebhooksListView } from '@/components/webhooks/webhook-views';
import type { SearchPageProps } from '@/lib/pagination';

export const metadata: Metadata = { title: 'Webhooks' };

/** A tenant's own webhook endpoints, for its quota's events. */
export default async function PortalWebhooksPage({ searchParams }: SearchPageProps) {
  return <WebhooksListView audience="tenant" params={await searchParams} />;
}
