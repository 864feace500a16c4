import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { StatusBadge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { formatMoney, type Invoice } from './billing-types';

/** The team's invoices from the payment provider (GET /billing/invoices, refreshed at most each minute). */
export function InvoicesCard() {
  const invoices = useQuery({
    queryKey: ['billing', 'invoices'],
    queryFn: () => api.get<{ data: Invoice[]; has_more: boolean }>('/billing/invoices'),
  });
  return (
    <Card title="Invoices" id="invoices">
      <ErrorMessage error={invoices.error} />
      {invoices.data ? (
        <DataTable
          caption="Invoices, newest first"
          rows={invoices.data.data}
          rowKey={(invoice) => invoice.id}
          empty={<EmptyState title="No invoices yet" />}
          columns={[
            { header: 'Date', cell: (invoice) => <Time value={invoice.created_at} mode="absolute" /> },
            { header: 'Number', cell: (invoice) => invoice.number ?? '—' },
            { header: 'Status', cell: (invoice) => (invoice.status ? <StatusBadge status={invoice.status} /> : '—') },
            {
              header: 'Total',
              className: 'num',
              cell: (invoice) => formatMoney(invoice.total_cents, invoice.currency),
            },
            {
              header: 'Documents',
              cell: (invoice) => (
                <span className="row">
                  {invoice.hosted_invoice_url ? (
                    <a href={invoice.hosted_invoice_url} target="_blank" rel="noreferrer">
                      View<span className="visually-hidden"> invoice {invoice.number}</span>
                    </a>
                  ) : null}
                  {invoice.invoice_pdf ? (
                    <a href={invoice.invoice_pdf} target="_blank" rel="noreferrer">
                      PDF<span className="visually-hidden"> of invoice {invoice.number}</span>
                    </a>
                  ) : null}
                </span>
              ),
            },
          ]}
        />
      ) : null}
      {invoices.data?.has_more ? (
        <p className="muted">Older invoices are in the payment portal (“Manage payment”).</p>
      ) : null}
    </Card>
  );
}
