import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import { PageHeader } from '../../ui/page';
import { AuditLogTable } from '../audit-log/audit-log-table';
import type { AdminTeam } from './admin-types';

/**
 * Every team's audit log for the operator (GET /admin/audit-logs), with a team filter; a team's
 * page links here filtered to it (?team_id=).
 */
export default function AdminAuditLogPage() {
  const teams = useQuery({
    queryKey: ['admin', 'teams', 'names'],
    queryFn: () => api.get<List<AdminTeam>>('/admin/teams', { query: { limit: 100 } }),
    staleTime: 60_000,
  });
  const names = new Map((teams.data?.data ?? []).map((team) => [team.id, team.name]));
  return (
    <>
      <PageHeader
        title="Audit log"
        description="What happened in every team of the appliance, and what operators did, newest first."
      />
      <AuditLogTable
        path="/admin/audit-logs"
        detailPath="/admin/audit-logs"
        teams={[...names].map(([value, label]) => ({ value, label }))}
        teamName={(id) => names.get(id) ?? `${id.slice(0, 8)}…`}
      />
    </>
  );
}
