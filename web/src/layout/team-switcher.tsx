import { useMutation } from '@tanstack/react-query';
import { api } from '../api/client';
import { useResetSession, useSession, useTeams } from '../api/session';
import { useToast } from '../ui/toast';

/** The current team, and the others the person belongs to (a switch rotates the session cookie). */
export function TeamSwitcher() {
  const session = useSession();
  const teams = useTeams(Boolean(session.data));
  const reset = useResetSession();
  const toast = useToast();
  const switchTeam = useMutation({
    mutationFn: (teamId: string) => api.post('/auth/teams/switch', { team_id: teamId }),
    onSuccess: async () => {
      await reset();
      toast('Switched team');
    },
    onError: () => toast('Could not switch team', 'bad'),
  });
  const list = teams.data ?? [];
  const current = list.find((membership) => membership.current);
  if (list.length <= 1) {
    return current ? (
      <p className="team-name" title="Current team">
        {current.team.name} <span className="muted">· {current.role}</span>
      </p>
    ) : null;
  }
  return (
    <div className="field team-switcher">
      <label htmlFor="team-switcher">Team</label>
      <select
        id="team-switcher"
        value={current?.team.id ?? ''}
        disabled={switchTeam.isPending}
        onChange={(event) => switchTeam.mutate(event.target.value)}
      >
        {list.map((membership) => (
          <option key={membership.team.id} value={membership.team.id}>
            {membership.team.name} ({membership.role})
          </option>
        ))}
      </select>
    </div>
  );
}
