import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { WebhookEndpointView } from '@/components/webhooks/webhook-views';
import type { SearchParams } from '@/lib/pagination';
import { isEndpointId } from '@/lib/webhooks';

export const metadata: Metadata = { title: 'Webhook endpoint' };

interface PortalWebhookPageProps {
  params: Promise<{ endpointId: string }>;
  searchParams: Promise<SearchParams>;
}

/** One of the tenant's own endpoints; another tenant's is not found. */
export default async function PortalWebhookPage({ params, searchParams }: PortalWebhookPageProps) {
  const { endpointId } = await params;
  if (!isEndpointId(endpointId)) notFound();
  return <WebhookEndpointView audience="tenant" endpointId={endpointId} params={await searchParams} />;
}
