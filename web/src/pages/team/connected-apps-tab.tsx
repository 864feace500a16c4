import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { useCursorList } from '../../api/list';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';

type Grant = {
  object: 'oauth_grant';
  id: string;
  client_id: string;
  client: { name: string; logo_uri: string | null };
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
};

/** The consent page's words for each scope (api/pages/consent-pages.ts), so a person reads the same thing twice. */
const SCOPE_WORDS: Record<string, string> = {
  'ai:use': 'Use the AI helpers (subject lines, drafts, diagnoses)',
  'automations:read': 'Read your automations and their runs',
  'automations:write': 'Create, change and stop automations',
  'billing:read': 'Read your plan, usage and invoices',
  'broadcasts:read': 'Read your broadcasts',
  'broadcasts:write': 'Create, schedule and send broadcasts',
  'contacts:read': 'Read your contacts, their topics, segments and consent records',
  'domains:read': 'Read your domains and their DNS records',
  'emails:read': 'Read the emails you sent and their events',
  'emails:send': 'Send email from your verified domains',
  'events:read': 'Read your custom event definitions',
  'events:send': 'Send custom events (which can start automations)',
  'events:write': 'Create and delete custom event definitions',
  'team:read': 'Read your team’s settings',
  'team:write': 'Change your team’s settings (not its name)',
  'templates:read': 'Read your templates',
};

/** Applications the team approved through OAuth, what each may do, and revoking one. */
export function ConnectedAppsTab() {
  const client = useQueryClient();
  const toast = useToast();
  const grants = useCursorList<Grant>('/oauth/grants');
  const [revoking, setRevoking] = useState<Grant | null>(null);
  const revoke = useMutation({
    mutationFn: (id: string) => api.delete(`/oauth/grants/${id}`),
    onSuccess: async () => {
      toast(`${revoking?.client.name ?? 'The application'} is disconnected`);
      setRevoking(null);
      await client.invalidateQueries({ queryKey: ['/oauth/grants'] });
    },
  });
  if (grants.isLoading) return <Loading />;
  return (
    <Card title="Connected apps" id="connected-apps">
      <p className="muted">
        Applications someone in the team allowed to use Mailroom on the team’s behalf. Revoking one stops every token it
        holds at once.
      </p>
      <ErrorMessage error={grants.error} />
      <DataTable
        caption="Connected applications"
        rows={grants.rows}
        rowKey={(grant) => grant.id}
        empty={
          <EmptyState title="No connected apps">
            An application asks for access through OAuth; once someone approves it, it shows here.
          </EmptyState>
        }
        columns={[
          {
            header: 'Application',
            cell: (grant) => (
              <>
                <strong>{grant.client.name}</strong>
                <div className="muted mono">{grant.client_id}</div>
              </>
            ),
          },
          {
            header: 'May',
            cell: (grant) => (
              <ul className="scope-list">
                {grant.scopes.map((scope) => (
                  <li key={scope}>
                    {SCOPE_WORDS[scope] ?? scope} <code className="muted">{scope}</code>
                  </li>
                ))}
              </ul>
            ),
          },
          { header: 'Approved', cell: (grant) => <Time value={grant.created_at} />, className: 'nowrap' },
          { header: 'Last used', cell: (grant) => <Time value={grant.last_used_at} />, className: 'nowrap' },
          {
            header: <span className="visually-hidden">Actions</span>,
            cell: (grant) => (
              <Button
                variant="ghost"
                className="btn-small"
                aria-label={`Revoke ${grant.client.name}`}
                onClick={() => {
                  revoke.reset();
                  setRevoking(grant);
                }}
              >
                Revoke
              </Button>
            ),
          },
        ]}
      />
      <ListPager list={grants} />
      <ConfirmDialog
        open={revoking !== null}
        title={`Disconnect ${revoking?.client.name ?? 'this application'}?`}
        confirmLabel="Revoke access"
        busy={revoke.isPending}
        error={revoke.error}
        onClose={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
      >
        <p>Its access and refresh tokens stop working now. To connect it again, someone approves it again.</p>
      </ConfirmDialog>
    </Card>
  );
}
