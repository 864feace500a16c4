import { useState } from 'react';
import { useCursorList } from '../../api/list';
import { Link, useSearchParam } from '../../router';
import { Badge, StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { SelectField } from '../../ui/field';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { PERMISSIONS, permissionLabel, useTeamDomains, type ApiKey } from './api-key-types';
import { CreateKeyDialog } from './create-key-dialog';
import { RevokeKeyDialog } from './revoke-key-dialog';

/** The team's API keys (never their tokens): filter, create one (its token shown once), revoke. */
export default function ApiKeysPage() {
  const [status, setStatus] = useSearchParam('status');
  const [permission, setPermission] = useSearchParam('permission');
  const list = useCursorList<ApiKey>('/api-keys', {
    status: status || undefined,
    permission: permission || undefined,
  });
  const domains = useTeamDomains();
  const domainName = (id: string) => domains.data?.find((domain) => domain.id === id)?.name ?? id;
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys let your applications call this appliance's API. Give each application its own key."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create API key
          </Button>
        }
      />
      <Card>
        <form className="filters" aria-label="Filter the keys" onSubmit={(event) => event.preventDefault()}>
          <SelectField
            label="Status"
            value={status}
            onChange={(event) => setStatus(event.target.value)}
            options={[
              { value: '', label: 'Active' },
              { value: 'revoked', label: 'Revoked' },
              { value: 'all', label: 'All' },
            ]}
          />
          <SelectField
            label="Permission"
            value={permission}
            onChange={(event) => setPermission(event.target.value)}
            options={[{ value: '', label: 'Any' }, ...PERMISSIONS]}
          />
        </form>
        <ErrorMessage error={list.error} />
        {list.isLoading ? (
          <Loading />
        ) : (
          <DataTable
            caption="API keys"
            rows={list.rows}
            rowKey={(key) => key.id}
            empty={
              <EmptyState title={status || permission ? 'No key matches these filters' : 'No API key yet'}>
                <p>Create a key for each application that sends mail through this appliance.</p>
              </EmptyState>
            }
            columns={[
              { header: 'Name', cell: (key) => <strong>{key.name}</strong> },
              { header: 'Key', cell: (key) => <code>{key.key_prefix}…</code> },
              { header: 'Permission', cell: (key) => permissionLabel(key.permission) },
              {
                header: 'Domain',
                cell: (key) => (key.domain_id ? domainName(key.domain_id) : <span className="muted">Any domain</span>),
              },
              {
                header: 'Status',
                cell: (key) =>
                  key.status === 'suspended' ? (
                    <Badge tone="warn">suspended</Badge>
                  ) : (
                    <StatusBadge status={key.status} />
                  ),
              },
              { header: 'Created', cell: (key) => <Time value={key.created_at} />, className: 'nowrap' },
              {
                header: 'Last used',
                className: 'nowrap',
                cell: (key) =>
                  key.last_used_at ? (
                    key.last_used_request_log_id ? (
                      <Link to={`/logs/${key.last_used_request_log_id}`}>
                        <Time value={key.last_used_at} />
                      </Link>
                    ) : (
                      <Time value={key.last_used_at} />
                    )
                  ) : (
                    <span className="muted">Never</span>
                  ),
              },
              {
                header: <span className="visually-hidden">Actions</span>,
                cell: (key) =>
                  key.status === 'revoked' ? null : (
                    <Button variant="danger" className="btn-small" onClick={() => setRevoking(key)}>
                      Revoke<span className="visually-hidden"> {key.name}</span>
                    </Button>
                  ),
              },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
      <CreateKeyDialog open={creating} onClose={() => setCreating(false)} />
      <RevokeKeyDialog apiKey={revoking} onClose={() => setRevoking(null)} />
    </>
  );
}
