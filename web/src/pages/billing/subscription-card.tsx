import { useMutation } from '@tanstack/react-query';
import { api } from '../../api/client';
import { useAdminOnly } from '../../api/session';
import { StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, DescriptionList } from '../../ui/page';
import { Time } from '../../ui/time';
import { billingConnected, formatMoney, type Billing } from './billing-types';

/**
 * The subscription as the payment provider reports it (GET /billing): status, period, card, a
 * failed payment, a change waiting for the period's end; "Manage payment" opens the provider's
 * portal (POST /billing/portal), where cards and invoices are handled: card details never pass
 * through the appliance.
 */
export function SubscriptionCard({ billing }: { billing: Billing }) {
  const notAdmin = useAdminOnly();
  const portal = useMutation({
    mutationFn: () => api.post<{ object: 'portal_session'; url: string }>('/billing/portal'),
    onSuccess: (session) => window.location.assign(session.url),
  });
  if (!billingConnected(billing))
    return (
      <Card title={`Plan: ${billing.plan.name}`} id="subscription">
        <p>
          This appliance does not charge through a payment provider: its operator sets each team’s plan (
          <code>mailroom team set-plan</code>).
        </p>
      </Card>
    );
  const { subscription, payment_method: card } = billing;
  return (
    <Card
      title={`Plan: ${billing.plan.name}`}
      id="subscription"
      actions={
        billing.checkout_available ? null : (
          <Button busy={portal.isPending} disabledReason={notAdmin} onClick={() => portal.mutate()}>
            Manage payment
          </Button>
        )
      }
    >
      {billing.payment_state ? (
        <p className="alert alert-error" role="alert">
          The last payment failed. Update the card with “Manage payment”, or the subscription ends when the provider
          stops retrying.
        </p>
      ) : null}
      {billing.pending_change ? (
        <p className="alert alert-info">A change to the subscription takes effect at the end of the period.</p>
      ) : null}
      <DescriptionList
        items={[
          ['Status', billing.checkout_available ? 'No subscription' : <StatusBadge status={subscription.status} />],
          [
            'Price',
            billing.plan.monthly_price_cents > 0
              ? `${formatMoney(billing.plan.monthly_price_cents, null)} a month`
              : 'Free',
          ],
          [
            'Current period',
            subscription.current_period_end ? <PeriodEnd end={subscription.current_period_end} /> : '—',
          ],
          ['Card', card.present ? `${card.brand ?? 'Card'} ending ${card.last4 ?? '····'}` : 'None on file'],
          ['Inbox seats bought', String(billing.inbox_seats.quantity)],
        ]}
      />
      <ErrorMessage error={portal.error} title="The payment portal could not be opened." />
    </Card>
  );
}

function PeriodEnd({ end }: { end: string }) {
  return (
    <>
      renews <Time value={end} mode="absolute" />
    </>
  );
}
