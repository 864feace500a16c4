import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { Badge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, DescriptionList, EmptyState, Loading } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { ActivityChart } from '../broadcasts/activity-chart';

/** GET /domains/{id}/dmarc-reports/summary, as the API answers it. */
type DmarcSummary = {
  messages: number;
  spf_aligned_rate: number;
  dkim_aligned_rate: number;
  dmarc_pass_rate: number;
  sources: Array<{
    ip: string;
    count: number;
    spf_aligned_rate: number;
    dkim_aligned_rate: number;
    dmarc_pass_rate: number;
    ours: boolean;
  }>;
  unknown_senders: Array<{ ip: string; count: number; failed: number }>;
  days: Array<{ date: string; count: number; dmarc_pass: number }>;
};

/** Every day from the first report's to the last, a day without reports at zero (a gap is not a trend). */
function everyDay(days: DmarcSummary['days']): DmarcSummary['days'] {
  if (days.length === 0) return days;
  const byDate = new Map(days.map((day) => [day.date, day]));
  const sorted = [...byDate.keys()].sort();
  const out: DmarcSummary['days'] = [];
  for (
    let at = Date.parse(`${sorted[0]}T00:00:00Z`);
    at <= Date.parse(`${sorted.at(-1)}T00:00:00Z`);
    at += 86_400_000
  ) {
    const date = new Date(at).toISOString().slice(0, 10);
    out.push(byDate.get(date) ?? { date, count: 0, dmarc_pass: 0 });
  }
  return out;
}

const percent = (rate: number) => `${Math.round(rate * 1000) / 10}%`;

/**
 * What the receivers' DMARC aggregate reports of the last 30 days add up to: how much of the
 * domain's mail passes aligned SPF and DKIM, who sends as the domain, and which senders are not
 * ours and fail (spoofing, or a service still to set up).
 */
export function DmarcReportsCard({ domainId }: { domainId: string }) {
  const summary = useQuery({
    queryKey: ['domains', domainId, 'dmarc-summary'],
    queryFn: ({ signal }) => api.get<DmarcSummary>(`/domains/${domainId}/dmarc-reports/summary?days=30`, { signal }),
    staleTime: 60_000,
  });
  const data = summary.data;
  return (
    <Card title="DMARC reports" id="dmarc-reports">
      <ErrorMessage error={summary.error} />
      {summary.isLoading ? <Loading label="Reading the reports…" /> : null}
      {data && data.messages === 0 ? (
        <EmptyState title="No DMARC reports in the last 30 days">
          Receivers send a daily report to the rua address of the domain's DMARC record (see the zone file).
        </EmptyState>
      ) : null}
      {data && data.messages > 0 ? (
        <>
          <DescriptionList
            items={[
              ['Messages reported (30 days)', data.messages.toLocaleString()],
              ['DMARC pass', percent(data.dmarc_pass_rate)],
              ['DKIM aligned', percent(data.dkim_aligned_rate)],
              ['SPF aligned', percent(data.spf_aligned_rate)],
            ]}
          />
          {data.days.length > 1 ? (
            <ActivityChart
              title="Messages reported and DMARC passes per day"
              points={everyDay(data.days).map((day) => ({
                period: `${day.date}T00:00:00Z`,
                values: { messages: day.count, pass: day.dmarc_pass },
              }))}
              series={[
                { key: 'messages', label: 'Messages reported', className: 'series-delivered' },
                { key: 'pass', label: 'DMARC pass', className: 'series-clicked' },
              ]}
            />
          ) : null}
          <DataTable
            caption="Sending sources"
            rowKey={(row) => row.ip}
            rows={data.sources.slice(0, 20)}
            columns={[
              { header: 'Source', cell: (row) => <span className="mono">{row.ip}</span> },
              { header: 'Messages', cell: (row) => row.count.toLocaleString() },
              { header: 'DMARC pass', cell: (row) => percent(row.dmarc_pass_rate) },
              { header: 'DKIM', cell: (row) => percent(row.dkim_aligned_rate) },
              { header: 'SPF', cell: (row) => percent(row.spf_aligned_rate) },
              {
                header: 'Sender',
                cell: (row) =>
                  row.ours ? (
                    <Badge tone="good">Mailroom</Badge>
                  ) : row.dmarc_pass_rate < 1 ? (
                    <Badge tone="bad">Unknown</Badge>
                  ) : (
                    'Other'
                  ),
              },
            ]}
          />
          {data.unknown_senders.length > 0 ? (
            <p className="muted">
              {data.unknown_senders.length} source{data.unknown_senders.length === 1 ? '' : 's'} not ours failed DMARC
              for {data.unknown_senders.reduce((sum, s) => sum + s.failed, 0).toLocaleString()} messages: a service you
              use that still needs DKIM for this domain, or someone sending as it.
            </p>
          ) : null}
        </>
      ) : null}
    </Card>
  );
}
