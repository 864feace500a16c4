import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { useSearchParam } from '../../router';
import { ErrorMessage } from '../../ui/error-message';
import { Loading, PageHeader } from '../../ui/page';
import { billingConnected, type Billing } from './billing-types';
import { InvoicesCard } from './invoices-card';
import { PlansCard } from './plans-card';
import { SeatsCard } from './seats-card';
import { SubscriptionCard } from './subscription-card';
import { UsageCard } from './usage-card';

/**
 * Billing and usage: what the plan counts this month, the subscription, plans on sale, seats and
 * invoices. On an appliance without a payment provider only the plan and the usage are shown.
 * The provider's checkout returns here with ?checkout=success or ?checkout=cancelled.
 */
export default function BillingPage() {
  const [checkout, setCheckout] = useSearchParam('checkout');
  const billing = useQuery({ queryKey: ['billing'], queryFn: () => api.get<Billing>('/billing') });
  const data = billing.data;
  return (
    <>
      <PageHeader title="Billing" description="The plan, what it counts this month, and payment." />
      {checkout === 'success' ? (
        <p className="alert alert-good" role="status">
          Thank you: the payment went through. The subscription shows here once the provider confirms it.{' '}
          <button type="button" className="btn btn-ghost btn-small" onClick={() => setCheckout(null)}>
            Dismiss
          </button>
        </p>
      ) : checkout === 'cancelled' ? (
        <p className="alert alert-info" role="status">
          The checkout was cancelled: nothing was charged.{' '}
          <button type="button" className="btn btn-ghost btn-small" onClick={() => setCheckout(null)}>
            Dismiss
          </button>
        </p>
      ) : null}
      <ErrorMessage error={billing.error} />
      {billing.isLoading ? <Loading /> : null}
      {data ? <SubscriptionCard billing={data} /> : null}
      <UsageCard />
      {data && billingConnected(data) ? (
        <>
          <PlansCard billing={data} />
          <SeatsCard billing={data} />
          <InvoicesCard />
        </>
      ) : null}
    </>
  );
}
