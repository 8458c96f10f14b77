import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { WebhookEndpointView } from '@/components/webhooks/webhook-views';
import type { SearchParams } from '@/lib/pagination';
import { isEndpointId } from '@/lib/webhooks';

export const metadata: Metadata = { title: 'Webhook endpoint' };

interface WebhookPageProps {
  params: Promise<{ endpointId: string }>;
  searchParams: Promise<SearchParams>;
}

/** One endpoint, the operator's or a tenant's: its settings, secret rotation, test event and delivery log. */
export default async function WebhookPage({ params, searchParams }: WebhookPageProps) {
  const { endpointId } = await params;
  if (!isEndpointId(endpointId)) notFound();
  return <WebhookEndpointView audience="admin" endpointId={endpointId} params={await searchParams} />;
}
