import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading, PageHeader } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { Deliverability, DoctorCheck } from './admin-types';
import { CheckBadge } from './check-badge';
import { count } from './format';
import { ShapingActionsCard } from './shaping-actions-card';
import { WarmupCard } from './warmup-card';

const KINDS: { kind: DoctorCheck['subject_kind']; title: string; id: string }[] = [
  { kind: 'ip', title: 'Per egress IP', id: 'checks-ip' },
  { kind: 'domain', title: 'Per sending domain', id: 'checks-domain' },
  { kind: 'system', title: 'The appliance', id: 'checks-system' },
];

/** Failures first, then warnings: what needs doing is at the top. */
const ORDER = { fail: 0, warn: 1, ok: 2 } as const;

function ChecksTable({ caption, checks }: { caption: string; checks: DoctorCheck[] }) {
  const rows = [...checks].sort((a, b) => ORDER[a.status] - ORDER[b.status]);
  return (
    <DataTable
      caption={caption}
      rowKey={(row) => `${row.check}/${row.subject}`}
      rows={rows}
      empty={<p className="muted">No check of this kind.</p>}
      columns={[
        { header: 'Subject', cell: (row) => <code>{row.subject}</code> },
        { header: 'Check', cell: (row) => row.check },
        { header: 'Result', cell: (row) => <CheckBadge status={row.status} /> },
        // Records to publish are long unbroken strings: they wrap rather than widen the table.
        { header: 'Detail', cell: (row) => <span style={{ overflowWrap: 'anywhere' }}>{row.detail}</span> },
        {
          header: 'How to fix',
          // The doctor sometimes says the fix in the detail itself: not repeated.
          cell: (row) =>
            row.status === 'ok' || !row.fix ? (
              <span className="muted">—</span>
            ) : row.fix === row.detail ? (
              <span className="muted">See the detail</span>
            ) : (
              <span style={{ overflowWrap: 'anywhere' }}>{row.fix}</span>
            ),
        },
      ]}
    />
  );
}

/** `mailroom doctor` in the browser: reverse DNS, block lists, SPF/DKIM/DMARC/MX, with the fix for each failure. */
export default function DeliverabilityPage() {
  const report = useQuery({
    queryKey: ['admin', 'deliverability'],
    queryFn: () => api.get<Deliverability>('/admin/deliverability'),
    staleTime: 60_000,
  });
  const data = report.data;
  return (
    <>
      <PageHeader
        title="Deliverability"
        description="The doctor's checks of every egress address and verified domain (DNS look-ups: this can take a few seconds)."
        actions={
          <Button busy={report.isFetching} onClick={() => void report.refetch()}>
            Run the checks again
          </Button>
        }
      />
      <ErrorMessage error={report.error} />
      <ShapingActionsCard />
      <WarmupCard />
      {report.isLoading ? <Loading label="Running the checks…" /> : null}
      {data ? (
        <>
          <p role="status" className="admin-summary">
            <CheckBadge status="fail" /> {count(data.summary.fail)} failing · <CheckBadge status="warn" />{' '}
            {count(data.summary.warn)} warnings · <CheckBadge status="ok" /> {count(data.summary.ok)} passing · as of{' '}
            <Time value={data.generated_at} mode="absolute" />
          </p>
          {KINDS.map(({ kind, title, id }) => {
            const checks = data.checks.filter((check) => check.subject_kind === kind);
            return checks.length > 0 ? (
              <Card key={kind} title={title} id={id}>
                <ChecksTable caption={`Checks ${title.toLowerCase()}`} checks={checks} />
              </Card>
            ) : null;
          })}
          <Card title="Block lists" id="blocklists">
            <DataTable
              caption="Block-list listings of the egress addresses"
              rowKey={(row) => `${row.address}/${row.zone}`}
              rows={[...data.blocklists].sort((a, b) => Number(b.listed) - Number(a.listed))}
              empty={<p className="muted">No block list is queried (doctor.dnsblZones is empty).</p>}
              columns={[
                { header: 'Address', cell: (row) => <code>{row.address}</code> },
                { header: 'Block list', cell: (row) => row.zone },
                { header: 'Listed', cell: (row) => (row.listed ? <strong>Listed</strong> : 'Not listed') },
                { header: 'Result', cell: (row) => <CheckBadge status={row.status} /> },
                { header: 'Detail', cell: (row) => row.detail },
              ]}
            />
          </Card>
        </>
      ) : null}
    </>
  );
}
