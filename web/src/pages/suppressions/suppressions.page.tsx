import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useCursorList } from '../../api/list';
import { api } from '../../api/client';
import { Link, useSearchParam } from '../../router';
import { Badge, type Tone } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField, TextField } from '../../ui/field';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import { AddSuppressionForm } from './add-suppression-form';

type Suppression = {
  id: string;
  email: string;
  origin: 'bounce' | 'complaint' | 'manual' | 'unsubscribe';
  source_id: string | null;
  created_at: string;
};

const ORIGINS: { value: string; label: string }[] = [
  { value: '', label: 'Any' },
  { value: 'bounce', label: 'Bounce' },
  { value: 'complaint', label: 'Complaint' },
  { value: 'unsubscribe', label: 'Unsubscribe' },
  { value: 'manual', label: 'Added by hand' },
];

const ORIGIN_WORDS: Record<Suppression['origin'], string> = {
  bounce: 'hard bounce',
  complaint: 'spam complaint',
  unsubscribe: 'unsubscribed',
  manual: 'added by hand',
};

const ORIGIN_TONES: Record<Suppression['origin'], Tone> = {
  bounce: 'bad',
  complaint: 'bad',
  unsubscribe: 'warn',
  manual: 'neutral',
};

/**
 * Addresses the appliance will not send to: found by the start of the address (`q`), filtered by
 * why they are here, added by hand and removed (after asking). An entry caused by an email links
 * to it.
 */
export default function SuppressionsPage() {
  const client = useQueryClient();
  const toast = useToast();
  const [q, setQ] = useSearchParam('q');
  const [origin, setOrigin] = useSearchParam('origin');
  // What is typed goes to the URL (and the API) after a short pause, not on every key.
  const [typed, setTyped] = useState(q);
  useEffect(() => {
    if (typed.trim() === q) return;
    const timer = window.setTimeout(() => setQ(typed.trim()), 300);
    return () => window.clearTimeout(timer);
  }, [typed, q, setQ]);
  const list = useCursorList<Suppression>('/suppressions', { q: q.trim(), origin });
  const [removing, setRemoving] = useState<Suppression | null>(null);
  const remove = useMutation({
    mutationFn: (entry: Suppression) => api.delete(`/suppressions/${entry.id}`),
    onSuccess: async (_answer, entry) => {
      setRemoving(null);
      toast(`${entry.email} can receive email again`);
      await client.invalidateQueries({ queryKey: ['/suppressions'] });
    },
  });
  const filtered = Boolean(q || origin);
  return (
    <>
      <PageHeader
        title="Suppressions"
        description="Addresses no email is sent to: they bounced for good, complained, unsubscribed, or were added by hand."
      />
      <Card title="Add an address" id="add-suppression">
        <AddSuppressionForm />
      </Card>
      <Card>
        <form
          className="filters"
          role="search"
          aria-label="Find suppressed addresses"
          onSubmit={(e) => e.preventDefault()}
        >
          <TextField
            label="Address starts with"
            type="search"
            name="q"
            placeholder="someone@"
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
            error={fieldError(list.error, 'q')}
          />
          <SelectField
            label="Origin"
            value={origin}
            onChange={(event) => setOrigin(event.target.value)}
            options={ORIGINS}
          />
        </form>
        <ErrorMessage error={fieldError(list.error, 'q') ? null : list.error} />
        {list.isLoading ? (
          <Loading />
        ) : list.rows.length === 0 && !list.hasPrevious ? (
          <EmptyState title={filtered ? 'No suppressed address matches' : 'No suppressed addresses'}>
            {filtered
              ? 'Nothing stops mail to such an address.'
              : 'Hard bounces and complaints land here by themselves.'}
          </EmptyState>
        ) : (
          <DataTable
            caption="Suppressed addresses, newest first"
            rows={list.rows}
            rowKey={(row) => row.id}
            columns={[
              { header: 'Address', cell: (row) => <span className="break-all">{row.email}</span> },
              {
                header: 'Origin',
                cell: (row) => <Badge tone={ORIGIN_TONES[row.origin]}>{ORIGIN_WORDS[row.origin]}</Badge>,
              },
              {
                header: 'Caused by',
                cell: (row) =>
                  row.source_id ? (
                    <Link to={`/emails/${row.source_id}`} aria-label={`The email that suppressed ${row.email}`}>
                      View email
                    </Link>
                  ) : (
                    <span className="muted">—</span>
                  ),
              },
              { header: 'Added', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
              {
                header: <span className="visually-hidden">Actions</span>,
                className: 'nowrap',
                cell: (row) => (
                  <Button className="btn-small" onClick={() => setRemoving(row)} aria-label={`Remove ${row.email}`}>
                    Remove
                  </Button>
                ),
              },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
      <ConfirmDialog
        open={removing !== null}
        title="Remove this suppression?"
        confirmLabel="Remove"
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => removing && remove.mutate(removing)}
        onClose={() => {
          setRemoving(null);
          remove.reset();
        }}
      >
        <p>
          Email to <strong className="break-all">{removing?.email}</strong> is sent again from now on.
          {removing?.origin === 'bounce' || removing?.origin === 'complaint'
            ? ' It was suppressed because of a ' +
              ORIGIN_WORDS[removing.origin] +
              ': sending to it again can hurt your reputation with mailbox providers.'
            : ''}
        </p>
      </ConfirmDialog>
    </>
  );
}
