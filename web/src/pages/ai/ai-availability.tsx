import { Link } from '../../router';
import { useTeam } from '../team/team-query';

/**
 * Whether the team has AI assist on (PATCH /team ai_assist_enabled). Off, the AI buttons are
 * replaced by a pointer to the setting rather than offered and refused.
 */
export function useAiAssist(): { enabled: boolean; loading: boolean } {
  const team = useTeam();
  return { enabled: team.data?.ai_assist_enabled === true, loading: team.isLoading };
}

export function AiAssistOffHint({ what }: { what: string }) {
  return (
    <p className="muted">
      {what} needs AI assist, which is off for this team. Turn it on in <Link to="/team">Team settings</Link>.
    </p>
  );
}
