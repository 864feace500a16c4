import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { useAdminOnly } from '../../api/session';
import { Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Card } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { useToast } from '../../ui/toast';
import { formatMoney, type Billing, type PlanOffer } from './billing-types';

const number = new Intl.NumberFormat();

/**
 * The plans on sale (GET /billing/plans). Without a subscription, "Subscribe" goes to the
 * provider's checkout (POST /billing/checkout; the browser comes back to this page with
 * ?checkout=success or cancelled); with one, "Switch" moves it (POST /billing/plan, prorated).
 */
export function PlansCard({ billing }: { billing: Billing }) {
  const client = useQueryClient();
  const toast = useToast();
  const notAdmin = useAdminOnly();
  const plans = useQuery({
    queryKey: ['billing', 'plans'],
    queryFn: () => api.get<{ data: PlanOffer[] }>('/billing/plans'),
  });
  const checkout = useMutation({
    mutationFn: (plan_code: string) => api.post<{ url: string }>('/billing/checkout', { plan_code, return_to: 'plan' }),
    onSuccess: (session) => window.location.assign(session.url),
  });
  const change = useMutation({
    mutationFn: (plan_code: string) => api.post('/billing/plan', { plan_code }),
    onSuccess: async () => {
      toast('The plan was changed');
      await client.invalidateQueries({ queryKey: ['billing'] });
      await client.invalidateQueries({ queryKey: ['usage'] });
      await client.invalidateQueries({ queryKey: ['team'] });
    },
  });
  const busy = checkout.isPending || change.isPending;
  const act = (plan: PlanOffer) => (billing.checkout_available ? checkout.mutate(plan.code) : change.mutate(plan.code));
  return (
    <Card title="Plans" id="plans">
      <ErrorMessage error={plans.error ?? checkout.error ?? change.error} />
      {plans.data ? (
        <DataTable
          caption="Plans on sale"
          rows={plans.data.data}
          rowKey={(plan) => plan.code}
          columns={[
            {
              header: 'Plan',
              cell: (plan) => (
                <>
                  {plan.name} {plan.current ? <Badge tone="info">Current</Badge> : null}
                </>
              ),
            },
            {
              header: 'Price',
              cell: (plan) =>
                plan.monthly_price_cents === null
                  ? '—'
                  : plan.monthly_price_cents === 0
                    ? 'Free'
                    : `${formatMoney(plan.monthly_price_cents, plan.currency)} a month`,
            },
            {
              header: 'Emails included a month',
              className: 'num',
              cell: (plan) => number.format(plan.included_emails),
            },
            {
              header: 'Single sign-on',
              cell: (plan) => (plan.single_sign_on ? 'Included' : '—'),
            },
            {
              header: <span className="visually-hidden">Action</span>,
              cell: (plan) =>
                plan.current || !plan.purchasable ? null : (
                  <Button className="btn-small" busy={busy} disabledReason={notAdmin} onClick={() => act(plan)}>
                    {billing.checkout_available ? `Subscribe to ${plan.name}` : `Switch to ${plan.name}`}
                  </Button>
                ),
            },
          ]}
        />
      ) : null}
    </Card>
  );
}
