import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, apiUrl } from '../../api/client';
import { StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { CopyButton } from '../../ui/copy-button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { DnsRecord, Domain } from './domain-types';
import { CHECK_EVERY_SECONDS, type LiveCheck } from './use-live-check';

const STATUS_TEXT: Record<string, string> = {
  not_started: 'Verification has not started yet.',
  pending: 'Waiting for the DNS records below to appear.',
  partially_verified: 'Some required records are found; the others are still missing.',
  temporary_failure: 'The last check could not get an answer from DNS; it will be tried again.',
  failed: 'The records were not found within 72 hours. Publish them, then check again.',
  verified: 'Verified: mail from this domain is signed and accepted by receivers.',
};

/** The newest time a record was looked up (every round checks them all). */
const lastChecked = (records: DnsRecord[]) =>
  records
    .map((record) => record.last_checked_at)
    .filter((value): value is string => Boolean(value))
    .sort()
    .at(-1) ?? null;

/** The records to publish, each with its own status and copy buttons, and the live check. */
export function DnsRecordsCard({ domain, live }: { domain: Domain; live: LiveCheck }) {
  return (
    <Card
      title="DNS records"
      id="dns-records"
      actions={
        <>
          <a
            className="btn btn-secondary btn-small"
            href={apiUrl(`/domains/${domain.id}/zone`)}
            download={`${domain.name}.zone`}
          >
            Download zone file
          </a>
          <Button className="btn-small" busy={live.checking} onClick={live.checkNow}>
            Check now
          </Button>
        </>
      }
    >
      <div className="verification-note">
        <p>
          <StatusBadge status={domain.status} /> {STATUS_TEXT[domain.status] ?? ''}
        </p>
        <p className="muted">
          {live.live
            ? `Checking every ${CHECK_EVERY_SECONDS} s while this page is open. `
            : 'Verified domains are checked again by the appliance in the background. '}
          Last checked: <Time value={lastChecked(domain.records)} />.
        </p>
      </div>
      {/* Announces the status alone (not the clock) to screen readers when a check changes it. */}
      <span className="visually-hidden" role="status">
        Domain status: {domain.status.replace(/_/g, ' ')}
      </span>
      <ErrorMessage error={live.error} title="The check failed." />
      <p className="field-hint">
        Add each record at your DNS provider. Names are relative to your zone: most providers add the zone themselves.
        Tracking and receiving records are needed only when those features are on.
      </p>
      <DataTable
        caption={`DNS records of ${domain.name}`}
        rows={domain.records}
        rowKey={(record) => `${record.record}-${record.type}-${record.name}-${record.value.slice(0, 40)}`}
        columns={[
          { header: 'Purpose', cell: (record) => record.record },
          { header: 'Type', cell: (record) => <span className="mono">{record.type}</span> },
          {
            header: 'Name',
            className: 'dns-name',
            cell: (record) => (
              <div className="dns-cell">
                <span className="dns-value">{record.name}</span>
                <CopyButton value={record.name} label="Copy name" />
              </div>
            ),
          },
          {
            header: 'Value',
            cell: (record) => (
              <div className="dns-cell">
                <span className="dns-value">{record.value}</span>
                <CopyButton value={record.value} label="Copy value" />
              </div>
            ),
          },
          { header: 'Priority', cell: (record) => record.priority ?? '—', className: 'num' },
          { header: 'TTL', cell: (record) => record.ttl },
          { header: 'Status', cell: (record) => <StatusBadge status={record.status} /> },
        ]}
      />
      <ZoneSnippet domain={domain} />
    </Card>
  );
}

/** The same records as a BIND zone-file snippet, fetched only when opened. */
function ZoneSnippet({ domain }: { domain: Domain }) {
  const [open, setOpen] = useState(false);
  const zone = useQuery({
    queryKey: ['/domains', domain.id, 'zone', domain.records.length],
    queryFn: ({ signal }) => api.text(`/domains/${domain.id}/zone`, { signal }),
    enabled: open,
  });
  return (
    <details className="zone-snippet" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Show as a zone file</summary>
      {zone.isLoading ? <Loading /> : null}
      <ErrorMessage error={zone.error} />
      {zone.data ? (
        <>
          {/* Scrolls when long: focusable so the keyboard can scroll it too. */}
          <pre tabIndex={0} role="region" aria-label="Zone-file snippet">
            {zone.data}
          </pre>
          <CopyButton value={zone.data} label="Copy the zone snippet" />
        </>
      ) : null}
    </details>
  );
}
