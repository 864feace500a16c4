import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import type { PageProps } from '../../routes';
import { Link } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField } from '../../ui/field';
import { Card, DescriptionList, Loading, PageHeader } from '../../ui/page';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import { PLANS, TIERS, type AdminTeam } from './admin-types';
import { SuspendTeamButton } from './suspend-team';
import { TeamState } from './team-state';
import { TeamUsageCard } from './team-usage-card';

/** One team for the operator: its state, plan and tier (changeable), and what it uses. */
export default function TeamDetailPage({ params }: PageProps) {
  const id = params.id!;
  const team = useQuery({
    queryKey: ['admin', 'team', id],
    queryFn: () => api.get<AdminTeam>(`/admin/teams/${encodeURIComponent(id)}`),
  });
  const data = team.data;
  return (
    <>
      <PageHeader
        title={data?.name ?? 'Team'}
        back={{ to: '/admin/teams', label: 'Teams' }}
        actions={data ? <SuspendTeamButton team={data} /> : null}
      />
      <ErrorMessage error={team.error} />
      {team.isLoading ? <Loading /> : null}
      {data ? (
        <>
          <Card title="Team" id="team">
            <DescriptionList
              items={[
                ['ID', <code key="id">{data.id}</code>],
                ['Slug', data.slug],
                ['State', <TeamState key="state" team={data} />],
                ['Created', <Time key="created" value={data.created_at} />],
                [
                  'Audit log',
                  <Link key="audit" to={`/admin/audit-log?team_id=${encodeURIComponent(data.id)}`}>
                    Open this team’s audit log
                  </Link>,
                ],
              ]}
            />
          </Card>
          <PlanCard team={data} />
          <TeamUsageCard teamId={data.id} />
        </>
      ) : null}
    </>
  );
}

/** Plan (its limits) and tier (how much it may send per hour while it builds a reputation). */
function PlanCard({ team }: { team: AdminTeam }) {
  const client = useQueryClient();
  const toast = useToast();
  const [plan, setPlan] = useState(team.plan.code);
  const [tier, setTier] = useState(String(team.tier));
  useEffect(() => {
    setPlan(team.plan.code);
    setTier(String(team.tier));
  }, [team.plan.code, team.tier]);
  const save = useMutation({
    mutationFn: () => api.patch<AdminTeam>(`/admin/teams/${team.id}`, { plan, tier: Number(tier) }),
    onSuccess: async (answer) => {
      client.setQueryData(['admin', 'team', team.id], answer);
      toast('Plan and tier saved');
      await client.invalidateQueries({ queryKey: ['admin', 'team-usage', team.id] });
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const plans = PLANS.includes(team.plan.code as (typeof PLANS)[number]) ? PLANS : [team.plan.code, ...PLANS];
  return (
    <Card title="Plan and tier" id="plan">
      <form aria-label="Plan and tier" onSubmit={onSubmit} className="admin-inline-form">
        <SelectField
          label="Plan"
          value={plan}
          onChange={(event) => setPlan(event.target.value)}
          options={plans.map((code) => ({ value: code, label: code }))}
          error={fieldError(save.error, 'plan')}
        />
        <SelectField
          label="Tier"
          value={tier}
          onChange={(event) => setTier(event.target.value)}
          options={TIERS.map((value) => ({ value: String(value), label: `Tier ${value}` }))}
          error={fieldError(save.error, 'tier')}
        />
        <Button type="submit" variant="primary" busy={save.isPending}>
          Save
        </Button>
      </form>
      <ErrorMessage error={save.error} />
    </Card>
  );
}
