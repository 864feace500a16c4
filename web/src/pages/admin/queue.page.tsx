import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { useSearchParam } from '../../router';
import { ErrorMessage } from '../../ui/error-message';
import { Loading, PageHeader } from '../../ui/page';
import type { QueueSummary } from './admin-types';
import { DestinationsCard, EgressCard } from './queue-breakdown-cards';
import { QueueActionsCard } from './queue-actions-card';
import { DestinationHoldsCard } from './destination-holds-card';
import { QueueDepthCard } from './queue-depth-card';
import { MessageSearchCard } from './message-search-card';
import { QueueEmailCard } from './queue-email-card';

/** How often the depth is read again: the page is watched while mail piles up or drains. */
const REFRESH_MS = 3000;

/** The outbound queue for the operator: depth, where mail waits, actions on it, one message's attempts. */
export default function QueuePage() {
  const [emailId] = useSearchParam('email');
  const summary = useQuery({
    queryKey: ['admin', 'queue', 'summary'],
    queryFn: () => api.get<QueueSummary>('/admin/queue'),
    refetchInterval: (query) => (query.state.error ? false : REFRESH_MS),
  });
  return (
    <>
      <PageHeader
        title="Queue"
        description="The outbound delivery queue of the whole appliance, every team. Updated every few seconds."
      />
      <ErrorMessage error={summary.error} />
      {summary.isLoading ? <Loading /> : null}
      {summary.data ? (
        <>
          <QueueDepthCard summary={summary.data} />
          <QueueActionsCard />
          <DestinationHoldsCard />
          <div className="admin-columns">
            <DestinationsCard summary={summary.data} />
            <EgressCard summary={summary.data} />
          </div>
          <MessageSearchCard />
          {emailId ? <QueueEmailCard emailId={emailId} /> : null}
        </>
      ) : null}
    </>
  );
}
