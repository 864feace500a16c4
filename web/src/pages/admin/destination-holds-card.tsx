import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, type List } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card, EmptyState } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import { messages } from './format';

type DestinationHold = {
  domain: string;
  reason: string | null;
  held_by: string | null;
  created_at: string;
};

/**
 * Standing holds on a destination (`mailroom queue hold-domain`): unlike Hold above, which acts on
 * what waits now, a held domain keeps new mail waiting too, until it is released here.
 */
export function DestinationHoldsCard() {
  const client = useQueryClient();
  const toast = useToast();
  const [domain, setDomain] = useState('');
  const [reason, setReason] = useState('');
  const holds = useQuery({
    queryKey: ['admin', 'queue', 'holds'],
    queryFn: () => api.get<List<DestinationHold>>('/admin/queue/holds'),
  });
  const refresh = () => client.invalidateQueries({ queryKey: ['admin', 'queue'] });
  const hold = useMutation({
    mutationFn: () =>
      api.post<DestinationHold & { held: number; already_held: boolean }>('/admin/queue/holds', {
        domain: domain.trim(),
        ...(reason.trim() ? { reason: reason.trim() } : {}),
      }),
    onSuccess: async (answer) => {
      toast(
        answer.already_held
          ? `${answer.domain} was already on hold`
          : `${answer.domain} is on hold: ${messages(answer.held)} held now, new mail waits too`,
      );
      setDomain('');
      setReason('');
      await refresh();
    },
  });
  const release = useMutation({
    mutationFn: (name: string) =>
      api.delete<{ domain: string; released: number }>(`/admin/queue/holds/${encodeURIComponent(name)}`),
    onSuccess: async (answer) => {
      toast(`${answer.domain} released: ${messages(answer.released)} due now`);
      await refresh();
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    hold.mutate();
  };
  return (
    <Card title="Destination holds" id="queue-destination-holds">
      <p className="field-hint">
        A held domain keeps all its mail waiting, including mail sent after the hold, until you release it. An attempt
        already under way finishes.
      </p>
      <form aria-label="Hold a destination" onSubmit={onSubmit} className="admin-filter-form">
        <div className="admin-filter-fields">
          <TextField
            label="Domain to hold"
            placeholder="example.com"
            value={domain}
            required
            onChange={(event) => setDomain(event.target.value)}
            error={fieldError(hold.error, 'domain')}
          />
          <TextField
            label="Reason (optional)"
            value={reason}
            maxLength={500}
            onChange={(event) => setReason(event.target.value)}
            error={fieldError(hold.error, 'reason')}
          />
        </div>
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={hold.isPending}>
            Hold domain
          </Button>
        </div>
      </form>
      <ErrorMessage error={hold.error ?? release.error ?? holds.error} />
      <DataTable
        caption="Held destination domains"
        rows={holds.data?.data ?? []}
        rowKey={(row) => row.domain}
        empty={<EmptyState title="No destination is on hold" />}
        columns={[
          { header: 'Domain', cell: (row) => <code>{row.domain}</code> },
          { header: 'Reason', cell: (row) => row.reason ?? <span className="muted">—</span> },
          { header: 'By', cell: (row) => row.held_by ?? <span className="muted">—</span> },
          { header: 'Since', cell: (row) => <Time value={row.created_at} /> },
          {
            header: <span className="visually-hidden">Actions</span>,
            cell: (row) => (
              <Button
                aria-label={`Release ${row.domain}`}
                busy={release.isPending && release.variables === row.domain}
                onClick={() => release.mutate(row.domain)}
              >
                Release
              </Button>
            ),
          },
        ]}
      />
    </Card>
  );
}
