import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { useToast } from '../../ui/toast';
import type { AdminTeam } from './admin-types';

/** Suspend (every key of the team refused) or resume a team, after saying what that does. */
export function SuspendTeamButton({ team }: { team: AdminTeam }) {
  const client = useQueryClient();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const action = team.suspended ? 'resume' : 'suspend';
  const change = useMutation({
    mutationFn: () => api.post<AdminTeam>(`/admin/teams/${team.id}/${action}`, {}),
    onSuccess: async (answer) => {
      setOpen(false);
      toast(`${answer.name} ${answer.suspended ? 'suspended' : 'resumed'}`);
      client.setQueryData(['admin', 'team', team.id], answer);
      await client.invalidateQueries({ queryKey: ['/admin/teams'] });
    },
  });
  return (
    <>
      <Button
        className="btn-small"
        variant={team.suspended ? 'secondary' : 'danger'}
        onClick={() => setOpen(true)}
        aria-label={`${team.suspended ? 'Resume' : 'Suspend'} ${team.name}`}
      >
        {team.suspended ? 'Resume' : 'Suspend'}
      </Button>
      <ConfirmDialog
        open={open}
        title={team.suspended ? `Resume ${team.name}?` : `Suspend ${team.name}?`}
        confirmLabel={team.suspended ? 'Resume team' : 'Suspend team'}
        onConfirm={() => change.mutate()}
        onClose={() => {
          setOpen(false);
          change.reset();
        }}
        busy={change.isPending}
        error={change.error}
      >
        {team.suspended ? (
          <p>Its API keys work again and its members can send.</p>
        ) : (
          <p>
            Every API key of {team.name} is refused (403 <code>suspended_api_key</code>) until you resume it. Its
            members can still sign in and look, but not send.
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}
