import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { PageProps } from '../../routes';
import { StatusBadge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, DescriptionList, Loading, PageHeader } from '../../ui/page';
import { Time } from '../../ui/time';
import { AutoConfigure } from './auto-configure';
import { DeleteDomain } from './delete-domain';
import { DkimRotation } from './dkim-rotation';
import { DnsRecordsCard } from './dns-records-card';
import { DomainHealthCard } from './domain-health-card';
import { DmarcReportsCard } from './dmarc-reports-card';
import { DomainSettingsCard } from './domain-settings-card';
import { domainKey, type Domain } from './domain-types';
import { useLiveCheck } from './use-live-check';

const back = { to: '/domains', label: 'Domains' };

/**
 * One domain: the records to publish and their live verification, the doctor's health checks,
 * its settings, and the actions on it (auto-configure, DKIM rotation, delete).
 */
export default function DomainDetailPage({ params }: PageProps) {
  const id = params.id ?? '';
  const query = useQuery({
    queryKey: domainKey(id),
    queryFn: ({ signal }) => api.get<Domain>(`/domains/${id}`, { signal }),
  });
  const domain = query.data;
  const live = useLiveCheck(domain);

  if (query.isLoading) return <Loading />;
  if (!domain)
    return (
      <>
        <PageHeader title="Domain" back={back} />
        <ErrorMessage error={query.error} />
      </>
    );
  return (
    <>
      <PageHeader
        title={domain.name}
        back={back}
        description={
          <>
            <StatusBadge status={domain.status} />{' '}
            <span className="muted">
              Region <span className="mono">{domain.region}</span> · added <Time value={domain.created_at} />
            </span>
          </>
        }
      />
      <ErrorMessage error={query.error} title="The domain could not be refreshed." />
      <DnsRecordsCard domain={domain} live={live} />
      <DomainHealthCard domainId={domain.id} />
      <DmarcReportsCard domainId={domain.id} />
      <div className="grid-2">
        <DomainSettingsCard domain={domain} />
        <div className="stack">
          <Card title="Details" id="details">
            <DescriptionList
              items={[
                ['Return path', <span className="mono">{`${domain.custom_return_path}.${domain.name}`}</span>],
                [
                  'Receiving at',
                  <span className="mono">
                    {domain.receiving_host === '@' ? domain.name : `${domain.receiving_host}.${domain.name}`}
                  </span>,
                ],
                ['Domain id', <span className="mono">{domain.id}</span>],
              ]}
            />
          </Card>
          <Card title="Automatic DNS set-up" id="auto-configure">
            <AutoConfigure domain={domain} />
          </Card>
          <Card title="DKIM key" id="dkim">
            <DkimRotation domain={domain} />
          </Card>
          <Card title="Delete this domain" id="delete">
            <DeleteDomain domain={domain} />
          </Card>
        </div>
      </div>
    </>
  );
}
