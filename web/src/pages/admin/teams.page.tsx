import { useState } from 'react';
import { useCursorList } from '../../api/list';
import { Link } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { AdminTeam } from './admin-types';
import { CreateTeamDialog } from './create-team-dialog';
import { MarketingCard } from './marketing-card';
import { SuspendTeamButton } from './suspend-team';
import { TeamState } from './team-state';

/** Every team of the appliance: create one, suspend or resume, open one for its plan and usage. */
export default function TeamsPage() {
  const [creating, setCreating] = useState(false);
  const teams = useCursorList<AdminTeam>('/admin/teams', {}, { limit: 20 });
  return (
    <>
      <PageHeader
        title="Teams"
        description="The tenants of this appliance."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create team
          </Button>
        }
      />
      <MarketingCard />
      <Card title="All teams" id="teams">
        <ErrorMessage error={teams.error} />
        {teams.isLoading ? <Loading /> : null}
        {teams.isEmpty ? <EmptyState title="No team yet">Create the first one.</EmptyState> : null}
        {teams.rows.length > 0 ? (
          <DataTable
            caption="Teams"
            rowKey={(row) => row.id}
            rows={teams.rows}
            columns={[
              { header: 'Name', cell: (row) => <Link to={`/admin/teams/${row.id}`}>{row.name}</Link> },
              { header: 'Plan', cell: (row) => row.plan.name },
              { header: 'Tier', cell: (row) => row.tier, className: 'num' },
              { header: 'State', cell: (row) => <TeamState team={row} /> },
              { header: 'Created', cell: (row) => <Time value={row.created_at} /> },
              {
                header: <span className="visually-hidden">Actions</span>,
                cell: (row) => <SuspendTeamButton team={row} />,
              },
            ]}
          />
        ) : null}
        <ListPager list={teams} />
      </Card>
      <CreateTeamDialog open={creating} onClose={() => setCreating(false)} />
    </>
  );
}
