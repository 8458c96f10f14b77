import type { Metadata } from 'next';
import { type EndpointPageProps, WebhookEndpointView } from '@/components/webhooks/webhook-views';

export const metadata: Metadata = { title: 'Webhook endpoint' };

/** One of the tenant's own endpoints; another tenant's is not found. */
export default function PortalWebhookPage(props: EndpointPageProps) {
  return <WebhookEndpointView audience="tenant" {...props} />;
}
