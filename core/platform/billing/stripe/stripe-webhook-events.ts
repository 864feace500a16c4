import type Stripe from 'stripe';
import type { ProviderEvent } from '../billing-provider.js';

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : value.id;

/**
 * The events the appliance acts on, each reduced to the subscription it concerns: the handler
 * re-reads that subscription from Stripe rather than trusting the event's snapshot, which may be
 * older than one already applied (Stripe does not deliver in order). Any other type: null.
 */
export function providerEvent(event: Stripe.Event): ProviderEvent | null {
  const base = { id: event.id, type: event.type };
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object;
      return { ...base, subscriptionId: idOf(session.subscription), customerId: idOf(session.customer) };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const subscription = event.data.object;
      return { ...base, subscriptionId: subscription.id, customerId: idOf(subscription.customer) };
    }
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const invoice = event.data.object;
      return {
        ...base,
        subscriptionId: idOf(invoice.parent?.subscription_details?.subscription),
        customerId: idOf(invoice.customer),
      };
    }
    default:
      return null;
  }
}
