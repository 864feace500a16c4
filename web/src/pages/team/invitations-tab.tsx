import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type List } from '../../api/client';
import { useAdminOnly } from '../../api/session';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField, TextField } from '../../ui/field';
import { Card, EmptyState, Loading } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { StatusBadge } from '../../ui/badge';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import { ROLE_WORDS } from './members-tab';

type Invitation = {
  object: 'invitation';
  id: string;
  email: string;
  role: 'admin' | 'member';
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
  created_at: string;
  expires_at: string;
};

const invitationsKey = ['team', 'invitations'] as const;

/**
 * Invitations: owners and admins invite an address with a role, see what was sent in the last 30
 * days and revoke a pending one. The API refuses all three to a member, so a member sees the
 * form disabled with the reason and the list is not asked for at all (no 403 to show).
 */
export function InvitationsTab() {
  const notAdmin = useAdminOnly();
  return (
    <>
      <InviteForm notAdmin={notAdmin} />
      {notAdmin ? null : <InvitationList />}
    </>
  );
}

function InviteForm({ notAdmin }: { notAdmin: string | null }) {
  const client = useQueryClient();
  const toast = useToast();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const invite = useMutation({
    mutationFn: () => api.post<Invitation>('/auth/invitations', { email: email.trim(), role }),
    onSuccess: async (invitation) => {
      toast(`Invitation sent to ${invitation.email}`);
      setEmail('');
      await client.invalidateQueries({ queryKey: invitationsKey });
    },
  });
  return (
    <Card title="Invite someone" id="invite">
      <p className="muted">
        They get a link by e-mail, valid for 7 days, to join as the role you choose. A new invitation to the same
        address replaces the pending one.
      </p>
      <form
        aria-label="Invite someone"
        className="row invite-form"
        onSubmit={(event) => {
          event.preventDefault();
          invite.mutate();
        }}
      >
        <TextField
          label="E-mail"
          type="email"
          name="email"
          autoComplete="off"
          required
          disabled={Boolean(notAdmin)}
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={fieldError(invite.error, 'email')}
        />
        <SelectField
          label="Role"
          name="role"
          disabled={Boolean(notAdmin)}
          value={role}
          onChange={(event) => setRole(event.target.value === 'admin' ? 'admin' : 'member')}
          error={fieldError(invite.error, 'role')}
          options={[
            { value: 'member', label: 'Member' },
            { value: 'admin', label: 'Admin (also manages invitations and the name)' },
          ]}
        />
        <div className="field">
          <Button type="submit" variant="primary" busy={invite.isPending} disabledReason={notAdmin}>
            Send invitation
          </Button>
        </div>
      </form>
      <ErrorMessage error={invite.error} />
    </Card>
  );
}

function InvitationList() {
  const client = useQueryClient();
  const toast = useToast();
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const list = useQuery({
    queryKey: invitationsKey,
    queryFn: () => api.get<List<Invitation>>('/auth/invitations'),
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.delete(`/auth/invitations/${id}`),
    onSuccess: async () => {
      toast('Invitation revoked');
      setRevoking(null);
      await client.invalidateQueries({ queryKey: invitationsKey });
    },
  });
  if (list.isLoading) return <Loading />;
  return (
    <Card title="Sent in the last 30 days" id="invitations">
      <ErrorMessage error={list.error} />
      <DataTable
        caption="Invitations of the last 30 days"
        rows={list.data?.data ?? []}
        rowKey={(invitation) => invitation.id}
        empty={<EmptyState title="No invitations">Invite someone above; the invitation shows here.</EmptyState>}
        columns={[
          { header: 'E-mail', cell: (invitation) => invitation.email },
          { header: 'Role', cell: (invitation) => ROLE_WORDS[invitation.role] ?? invitation.role },
          { header: 'Status', cell: (invitation) => <StatusBadge status={invitation.status} /> },
          { header: 'Sent', cell: (invitation) => <Time value={invitation.created_at} />, className: 'nowrap' },
          {
            header: 'Expires',
            cell: (invitation) => (invitation.status === 'pending' ? <Time value={invitation.expires_at} /> : '—'),
            className: 'nowrap',
          },
          {
            header: <span className="visually-hidden">Actions</span>,
            cell: (invitation) =>
              invitation.status === 'pending' ? (
                <Button
                  variant="ghost"
                  className="btn-small"
                  onClick={() => {
                    revoke.reset();
                    setRevoking(invitation);
                  }}
                  aria-label={`Revoke the invitation to ${invitation.email}`}
                >
                  Revoke
                </Button>
              ) : null,
          },
        ]}
      />
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this invitation?"
        confirmLabel="Revoke"
        busy={revoke.isPending}
        error={revoke.error}
        onClose={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
      >
        <p>
          The link sent to <strong>{revoking?.email}</strong> stops working. You can invite the address again later.
        </p>
      </ConfirmDialog>
    </Card>
  );
}
