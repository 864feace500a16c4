import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { PageProps } from '../../routes';
import { useSearchParam } from '../../router';
import { StatusBadge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, DescriptionList, Loading, PageHeader } from '../../ui/page';
import { Time } from '../../ui/time';
import { ImportFailures } from './import-failures';
import { ImportProgress } from './import-progress';
import { isRunning, type ContactImport } from './import-types';

/** How often a running import is asked for its counts. */
const POLL_MS = 1000;

/** One import: its progress while it runs (polled), how it ended, whether it resumed, its failed rows. */
export default function ImportPage({ params }: PageProps) {
  const id = params.id!;
  const [rows] = useSearchParam('rows');
  const imp = useQuery({
    queryKey: ['/contacts/imports', id],
    queryFn: ({ signal }) => api.get<ContactImport>(`/contacts/imports/${id}`, { signal }),
    refetchInterval: (query) => (query.state.data && !isRunning(query.state.data.status) ? false : POLL_MS),
  });
  if (imp.isLoading) return <Loading />;
  if (!imp.data) return <ErrorMessage error={imp.error} />;
  const i = imp.data;
  const totalRows = rows && Number.isFinite(Number(rows)) ? Number(rows) : null;
  return (
    <>
      <PageHeader title="Import" back={{ to: '/imports', label: 'Imports' }} />
      <Card
        title={
          <>
            Status <StatusBadge status={i.status} />
          </>
        }
        id="import-status"
      >
        {i.resumed_at ? (
          <p className="alert alert-info" data-testid="import-resumed">
            <strong>Resumed after a restart</strong> at <Time value={i.resumed_at} mode="absolute" />: the run that
            started it stopped part-way (the scheduler was stopped, restarted or crashed) and a new run carried on after
            the last rows committed. No row was imported twice.
          </p>
        ) : null}
        {i.status === 'failed' ? (
          <p className="field-error" role="alert">
            The import stopped: {i.failure_reason ?? 'no reason given'}. Rows counted below were imported.
          </p>
        ) : null}
        <ImportProgress imp={i} totalRows={totalRows} />
        <DescriptionList
          items={[
            ['Uploaded', <Time key="created" value={i.created_at} mode="absolute" />],
            ['Finished', i.completed_at ? <Time key="done" value={i.completed_at} mode="absolute" /> : '—'],
          ]}
        />
        <ErrorMessage error={imp.error} title="The latest progress could not be read" />
      </Card>
      <ImportFailures imp={i} />
    </>
  );
}
