import { useState } from 'react';
import { useCursorList } from '../../api/list';
import { Link } from '../../router';
import { Button } from '../../ui/button';
import { StatusBadge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { AddDomainDialog } from './add-domain-dialog';
import type { DomainItem } from './domain-types';

/** The team's sending domains, newest first, and the way to add one. */
export default function DomainsListPage() {
  const list = useCursorList<DomainItem>('/domains');
  const [adding, setAdding] = useState(false);
  const add = (
    <Button variant="primary" onClick={() => setAdding(true)}>
      Add domain
    </Button>
  );
  return (
    <>
      <PageHeader
        title="Domains"
        description="The domains you send from (and receive at). Each needs a few DNS records before its mail is signed and delivered."
        actions={add}
      />
      <Card>
        <ErrorMessage error={list.error} />
        {list.isLoading ? (
          <Loading />
        ) : (
          <DataTable
            caption="Domains"
            rows={list.rows}
            rowKey={(domain) => domain.id}
            empty={
              <EmptyState title="No domain yet">
                <p>Add the domain you send from; the page then lists the DNS records to publish.</p>
              </EmptyState>
            }
            columns={[
              {
                header: 'Domain',
                cell: (domain) => <Link to={`/domains/${domain.id}`}>{domain.name}</Link>,
              },
              { header: 'Status', cell: (domain) => <StatusBadge status={domain.status} /> },
              { header: 'Region', cell: (domain) => <span className="mono">{domain.region}</span> },
              {
                header: 'Capabilities',
                cell: (domain) =>
                  [
                    domain.capabilities.sending === 'enabled' ? 'sending' : null,
                    domain.capabilities.receiving === 'enabled' ? 'receiving' : null,
                  ]
                    .filter(Boolean)
                    .join(', '),
              },
              { header: 'Created', cell: (domain) => <Time value={domain.created_at} />, className: 'nowrap' },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
      <AddDomainDialog open={adding} onClose={() => setAdding(false)} />
    </>
  );
}
