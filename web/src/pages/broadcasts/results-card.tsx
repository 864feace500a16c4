import { useQueries, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type List } from '../../api/client';
import { useCursorList } from '../../api/list';
import { Link } from '../../router';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Tabs } from '../../ui/tabs';
import { ActivityChart, type ChartPoint } from './activity-chart';
import {
  RECIPIENT_TYPES,
  type Broadcast,
  type ClickedLink,
  type Recipient,
  type RecipientType,
} from './broadcast-types';

/** Counted up to this many per type (the API pages and never counts); more reads "100+". */
const COUNT_LIMIT = 100;
const LABELS: Record<RecipientType, string> = {
  sent: 'Sent',
  delivered: 'Delivered',
  opened: 'Opened',
  clicked: 'Clicked',
  bounced: 'Bounced',
  complained: 'Complained',
  unsubscribed: 'Unsubscribed',
  suppressed: 'Suppressed',
};

/** How many recipients of each type, from one page of each (GET /broadcasts/{id}/recipients). */
function useRecipientCounts(broadcastId: string, refetchInterval: number | false) {
  return useQueries({
    queries: RECIPIENT_TYPES.map((type) => ({
      queryKey: ['/broadcasts', broadcastId, 'recipients', type, 'count'],
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        api.get<List<Recipient>>(`/broadcasts/${broadcastId}/recipients`, {
          query: { type, limit: COUNT_LIMIT },
          signal,
        }),
      refetchInterval,
    })),
  });
}

function RecipientsTable({
  broadcastId,
  type,
  refetchInterval,
}: {
  broadcastId: string;
  type: RecipientType;
  refetchInterval: number | false;
}) {
  const list = useCursorList<Recipient>(`/broadcasts/${broadcastId}/recipients`, { type }, { refetchInterval });
  if (list.isLoading) return <Loading />;
  return (
    <>
      <ErrorMessage error={list.error} />
      <DataTable
        caption={`${LABELS[type]} recipients`}
        rows={list.rows}
        rowKey={(r) => r.id}
        empty={<p className="muted">No recipient is {LABELS[type].toLowerCase()}.</p>}
        columns={[
          { header: 'Email', cell: (r) => <span className="break-all">{r.email}</span> },
          ...(type === 'opened' || type === 'clicked'
            ? [{ header: type === 'opened' ? 'Opens' : 'Clicks', cell: (r: Recipient) => r.count ?? 0 }]
            : []),
          ...(type === 'bounced' ? [{ header: 'Bounce', cell: (r: Recipient) => r.bounce_type ?? '—' }] : []),
          ...(type === 'clicked'
            ? [
                {
                  header: 'Links',
                  cell: (r: Recipient) => (r.clicked_links ?? []).map((l) => `${l.url} (${l.clicks})`).join(', '),
                },
              ]
            : []),
          {
            header: 'Contact',
            cell: (r) => (r.contact_id ? <code>{r.contact_id}</code> : <span className="muted">deleted</span>),
          },
        ]}
      />
      <ListPager list={list} />
    </>
  );
}

/** Opens and clicks per hour since the broadcast went (GET /emails/metrics with broadcast_id). */
function useActivity(broadcast: Broadcast, refetchInterval: number | false) {
  const start = broadcast.sent_at ?? broadcast.scheduled_at ?? broadcast.created_at;
  return useQuery({
    queryKey: ['/emails/metrics', 'broadcast', broadcast.id],
    queryFn: ({ signal }) =>
      api.get<{ data?: Array<{ period?: string } & Record<string, number | string>> }>('/emails/metrics', {
        query: {
          broadcast_id: broadcast.id,
          dimensions: 'period',
          granularity: 'hourly',
          metrics: 'delivered,opened,clicked',
          start_date: new Date(new Date(start).getTime() - 3_600_000).toISOString(),
        },
        signal,
      }),
    refetchInterval,
  });
}

/**
 * A broadcast's results: recipients by what happened to them (counted, and listed by type),
 * the links clicked with total and unique clicks, and opens and clicks over time.
 */
export function ResultsCard({ broadcast }: { broadcast: Broadcast }) {
  const live = broadcast.status === 'sending' || broadcast.status === 'queued' ? 2000 : 10_000;
  const counts = useRecipientCounts(broadcast.id, live);
  const [type, setType] = useState<RecipientType>('delivered');
  const links = useCursorList<ClickedLink>(`/broadcasts/${broadcast.id}/clicked-links`, {}, { refetchInterval: live });
  const activity = useActivity(broadcast, live);
  const points: ChartPoint[] = (activity.data?.data ?? []).map((row) => ({
    period: String(row.period),
    values: {
      opened: Number(row.opened ?? 0),
      clicked: Number(row.clicked ?? 0),
      delivered: Number(row.delivered ?? 0),
    },
  }));
  const countOf = (i: number) => {
    const page = counts[i]?.data;
    if (!page) return '…';
    return page.has_more ? `${COUNT_LIMIT}+` : String(page.data.length);
  };
  return (
    <>
      <Card title="Recipients" id="broadcast-recipients">
        <dl className="broadcast-counts" aria-label="Recipients by type">
          {RECIPIENT_TYPES.map((t, i) => (
            <div key={t} className="broadcast-count">
              <dt>{LABELS[t]}</dt>
              <dd data-testid={`count-${t}`}>{countOf(i)}</dd>
            </div>
          ))}
        </dl>
        <ErrorMessage error={counts.find((c) => c.error)?.error} />
        <Tabs
          label="Recipients by type"
          selected={type}
          onSelect={(id) => setType(id as RecipientType)}
          tabs={RECIPIENT_TYPES.map((t) => ({
            id: t,
            label: LABELS[t],
            panel: () => <RecipientsTable broadcastId={broadcast.id} type={t} refetchInterval={live} />,
          }))}
        />
      </Card>
      <Card title="Opens and clicks over time" id="broadcast-activity">
        <ErrorMessage error={activity.error} />
        {activity.isLoading ? (
          <Loading />
        ) : (
          <ActivityChart
            title="Delivered, opened and clicked per hour"
            points={points}
            series={[
              { key: 'delivered', label: 'Delivered', className: 'series-delivered' },
              { key: 'opened', label: 'Opened', className: 'series-opened' },
              { key: 'clicked', label: 'Clicked', className: 'series-clicked' },
            ]}
          />
        )}
        <p className="field-hint">
          Hourly, from the metrics (which trail by a minute). All of the team’s figures are on{' '}
          <Link to="/metrics">Metrics</Link>.
        </p>
      </Card>
      <Card title="Clicked links" id="broadcast-links">
        <ErrorMessage error={links.error} />
        {links.isLoading ? (
          <Loading />
        ) : links.isEmpty ? (
          <EmptyState title="No link clicked yet" />
        ) : (
          <DataTable
            caption="Clicked links"
            rows={links.rows}
            rowKey={(l) => l.id}
            columns={[
              { header: 'Link', cell: (l) => <span className="break-all">{l.url}</span> },
              { header: 'Clicks', cell: (l) => l.clicks },
              { header: 'Unique clicks', cell: (l) => l.unique_clicks },
            ]}
          />
        )}
        <ListPager list={links} />
      </Card>
    </>
  );
}
