import { Badge } from '../../ui/badge';
import type { AdminTeam } from './admin-types';

/** Suspended or active, in words (risk states other than normal are named as they are). */
export function TeamState({ team }: { team: AdminTeam }) {
  if (team.suspended) return <Badge tone="bad">suspended</Badge>;
  if (team.risk_state !== 'normal') return <Badge tone="warn">{team.risk_state.replace(/_/g, ' ')}</Badge>;
  return <Badge tone="good">active</Badge>;
}
