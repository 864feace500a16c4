import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { useAdminOnly } from '../../api/session';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import type { Billing } from './billing-types';

/**
 * Inbox seats, the add-on sold by unit: added to the subscription (POST /billing/addons), or
 * bought through checkout when the team has none (POST /billing/checkout with addon_code).
 */
export function SeatsCard({ billing }: { billing: Billing }) {
  const client = useQueryClient();
  const toast = useToast();
  const notAdmin = useAdminOnly();
  const [quantity, setQuantity] = useState('1');
  const buy = useMutation({
    mutationFn: async (count: number) => {
      if (billing.checkout_available) {
        const session = await api.post<{ url: string }>('/billing/checkout', {
          addon_code: billing.inbox_seats.code,
          quantity: count,
          return_to: 'plan',
        });
        window.location.assign(session.url);
        return;
      }
      await api.post('/billing/addons', { addon_code: billing.inbox_seats.code, quantity: count });
      toast(count === 1 ? 'One seat was added' : `${count} seats were added`);
      await client.invalidateQueries({ queryKey: ['billing'] });
    },
  });
  return (
    <Card title="Inbox seats" id="seats">
      <p className="muted">
        {billing.inbox_seats.included} included (one per member), {billing.inbox_seats.quantity} bought.
      </p>
      <form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          buy.mutate(Number(quantity));
        }}
      >
        <TextField
          label="Seats to add"
          type="number"
          min={1}
          max={100}
          required
          value={quantity}
          onChange={(event) => setQuantity(event.target.value)}
          error={fieldError(buy.error, 'quantity')}
        />
        <Button type="submit" busy={buy.isPending} disabledReason={notAdmin}>
          {billing.checkout_available ? 'Buy seats' : 'Add seats'}
        </Button>
      </form>
      <ErrorMessage error={buy.error} title="No seats were added." />
    </Card>
  );
}
