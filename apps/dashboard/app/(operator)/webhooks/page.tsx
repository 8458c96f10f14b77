import type { Metadata } from 'next';
import { WebhooksListView } from '@/components/webhooks/webhook-views';
import type { SearchPageProps } from '@/lib/pagination';

export const metadata: Metadata = { title: 'Webhooks' };

/** Every webhook endpoint, the operator's and tenants', filtered by owner and state. */
export default async function WebhooksPage({ searchParams }: SearchPageProps) {
  return <WebhooksListView audience="admin" params={await searchParams} />;
}
