import type { Metadata } from 'next';
import { type EndpointPageProps, WebhookEndpointView } from '@/components/webhooks/webhook-views';

export const metadata: Metadata = { title: 'Webhook endpoint' };

/** One endpoint, the operator's or a tenant's: its settings, secret rotation, test event and delivery log. */
export default function WebhookPage(props: EndpointPageProps) {
  return <WebhookEndpointView audience="admin" {...props} />;
}
