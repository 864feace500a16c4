import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import type { ShapingAction } from './admin-types';

const KIND: Record<ShapingAction['kind'], string> = {
  slow: 'Slowed',
  pause: 'Paused',
  suspend_marketing: 'Marketing suspended',
};

/** "50% of the limits" for a slow (its share now), nothing for the others. */
const share = (action: ShapingAction) => {
  const factor = action.factor_now ?? action.factor;
  return factor === null ? null : `${Math.round(factor * 100)}% of the limits`;
};

function ActionsTable({
  caption,
  rows,
  empty,
  onLift,
  lifting,
}: {
  caption: string;
  rows: ShapingAction[];
  empty: string;
  onLift?: (id: string) => void;
  lifting?: string;
}) {
  return (
    <DataTable
      caption={caption}
      rows={rows}
      rowKey={(row) => row.id}
      empty={<EmptyState title={empty} />}
      columns={[
        { header: 'Action', cell: (row) => [KIND[row.kind], share(row)].filter(Boolean).join(': ') },
        { header: 'Provider', cell: (row) => row.provider },
        {
          header: 'Address or team',
          cell: (row) => <code>{row.egress_ip ?? row.team_id}</code>,
        },
        { header: 'Rule', cell: (row) => row.rule_id ?? <span className="muted">—</span> },
        { header: 'Reply', cell: (row) => <span className="shaping-reason">{row.reason}</span> },
        { header: 'Started', cell: (row) => <Time value={row.started_at} /> },
        { header: endsHeader(rows), cell: (row) => <Time value={row.ends_at} /> },
        ...(onLift
          ? [
              {
                header: <span className="visually-hidden">Actions</span>,
                cell: (row: ShapingAction) => (
                  <Button
                    aria-label={`Lift ${KIND[row.kind].toLowerCase()} of ${row.provider} ${row.egress_ip ?? row.team_id}`}
                    busy={lifting === row.id}
                    onClick={() => onLift(row.id)}
                  >
                    Lift
                  </Button>
                ),
              },
            ]
          : []),
      ]}
    />
  );
}

const endsHeader = (rows: ShapingAction[]) => (rows.some((row) => row.active) ? 'Ends' : 'Ended');

/** Traffic shaping's actions (`mailroom deliverability actions`): those in force with Lift, and the recent ones. */
export function ShapingActionsCard() {
  const client = useQueryClient();
  // In force: every one (a short list); recent: the newest ended ones.
  const active = useQuery({
    queryKey: ['admin', 'shaping-actions', 'active'],
    queryFn: () =>
      api.get<List<ShapingAction>>('/admin/deliverability/actions', { query: { active: true, limit: 100 } }),
    refetchInterval: 15_000,
  });
  const recent = useQuery({
    queryKey: ['admin', 'shaping-actions', 'recent'],
    queryFn: () => api.get<List<ShapingAction>>('/admin/deliverability/actions', { query: { limit: 50 } }),
    refetchInterval: 15_000,
  });
  const lift = useMutation({
    mutationFn: (id: string) => api.delete<ShapingAction>(`/admin/deliverability/actions/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['admin', 'shaping-actions'] }),
  });
  return (
    <Card title="Traffic shaping" id="shaping-actions">
      <p className="field-hint">
        What Mailroom did about receivers&apos; replies: a slowed address doubles its share back every restore period; a
        pause ends on its own. Lift ends one now.
      </p>
      <ErrorMessage error={lift.error ?? active.error ?? recent.error} />
      <h3>In force</h3>
      <ActionsTable
        caption="Shaping actions in force"
        rows={active.data?.data ?? []}
        empty="No action in force"
        onLift={(id) => lift.mutate(id)}
        lifting={lift.isPending ? lift.variables : undefined}
      />
      <h3>Recent</h3>
      <ActionsTable
        caption="Recent shaping actions"
        rows={(recent.data?.data ?? []).filter((a) => !a.active).slice(0, 20)}
        empty="No recent action"
      />
    </Card>
  );
}
