import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { PageProps } from '../../routes';
import { useSearchParam } from '../../router';
import { StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Loading, PageHeader } from '../../ui/page';
import { Tabs } from '../../ui/tabs';
import { useToast } from '../../ui/toast';
import type { Automation } from './automation-types';
import { AutomationEditor } from './automation-editor';
import { RunsCard } from './runs-card';
import { VersionsCard } from './versions-card';

/** One automation (or a new one at /automations/new): the graph editor, its runs, its versions; start and stop. */
export default function AutomationPage({ params }: PageProps) {
  const id = params.id!;
  if (id === 'new')
    return (
      <>
        <PageHeader title="New automation" back={{ to: '/automations', label: 'Automations' }} />
        <AutomationEditor />
      </>
    );
  return <ExistingAutomation id={id} />;
}

function ExistingAutomation({ id }: { id: string }) {
  const [tab, setTab] = useSearchParam('tab');
  const client = useQueryClient();
  const toast = useToast();
  const automation = useQuery({
    queryKey: ['/automations', id],
    queryFn: () => api.get<Automation>(`/automations/${id}`),
  });
  const refresh = () => client.invalidateQueries({ queryKey: ['/automations'] });
  const start = useMutation({
    mutationFn: () => api.patch(`/automations/${id}`, { status: 'enabled' }),
    onSuccess: async () => (await refresh(), toast('Started: new events enrol contacts')),
  });
  const stop = useMutation({
    mutationFn: () => api.post(`/automations/${id}/stop`),
    onSuccess: async () => (await refresh(), toast('Stopped: live runs were cancelled')),
  });
  const a = automation.data;
  return (
    <>
      <PageHeader
        title={a ? a.name : 'Automation'}
        back={{ to: '/automations', label: 'Automations' }}
        description={a ? <StatusBadge status={a.status} /> : null}
        actions={
          a ? (
            a.status === 'enabled' ? (
              <Button variant="danger" busy={stop.isPending} onClick={() => stop.mutate()}>
                Stop
              </Button>
            ) : (
              <Button variant="primary" busy={start.isPending} onClick={() => start.mutate()}>
                Start
              </Button>
            )
          ) : null
        }
      />
      <ErrorMessage error={automation.error ?? start.error ?? stop.error} />
      {automation.isLoading ? <Loading /> : null}
      {a ? (
        <Tabs
          label="Automation"
          selected={tab || 'graph'}
          onSelect={(next) => setTab(next === 'graph' ? null : next)}
          tabs={[
            // Keyed by the last change so a saved version reloads the editor from the API.
            {
              id: 'graph',
              label: 'Graph',
              panel: () => <AutomationEditor key={a.updated_at ?? a.created_at} automation={a} />,
            },
            { id: 'runs', label: 'Runs', panel: () => <RunsCard automationId={id} /> },
            { id: 'versions', label: 'Versions', panel: () => <VersionsCard automationId={id} /> },
          ]}
        />
      ) : null}
    </>
  );
}
