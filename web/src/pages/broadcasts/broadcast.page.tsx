import { useQuery } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { api } from '../../api/client';
import type { PageProps } from '../../routes';
import { StatusBadge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, DescriptionList, Loading, PageHeader } from '../../ui/page';
import { Time } from '../../ui/time';
import { BroadcastEditor } from './broadcast-editor';
import { hasResults, isCancelable, isDraft, type Broadcast } from './broadcast-types';
import { ChecklistCard } from './checklist-card';
import { ResultsCard } from './results-card';
import { CancelButton, SendCard } from './send-card';
import { useSegments } from './use-audience';

/** What a broadcast that is no longer a draft was sent with. */
function SummaryCard({ broadcast }: { broadcast: Broadcast }) {
  const segments = useSegments();
  const segmentId = broadcast.segment_id ?? broadcast.audience_id;
  return (
    <Card
      title="Broadcast"
      id="broadcast-summary"
      actions={isCancelable(broadcast) ? <CancelButton broadcast={broadcast} /> : null}
    >
      <DescriptionList
        items={[
          ['Status', <StatusBadge key="s" status={broadcast.status} />],
          ['Segment', segments.data?.data.find((s) => s.id === segmentId)?.name ?? segmentId ?? '—'],
          ['From', broadcast.from ?? '—'],
          ['Subject', broadcast.subject ?? '—'],
          ['Scheduled for', <Time key="sc" value={broadcast.scheduled_at} mode="absolute" />],
          ['Sent', <Time key="se" value={broadcast.sent_at} mode="absolute" />],
        ]}
      />
    </Card>
  );
}

/**
 * One broadcast: a draft's editor with its live preview, checklist and send; once sent (or on
 * its way), what it was sent with, cancel while that is possible, and its results.
 */
export default function BroadcastPage({ params }: PageProps) {
  const id = params.id!;
  const [dirty, setDirty] = useState(false);
  const onDirty = useCallback((value: boolean) => setDirty(value), []);
  const broadcast = useQuery({
    queryKey: ['/broadcasts', id],
    queryFn: ({ signal }) => api.get<Broadcast>(`/broadcasts/${id}`, { signal }),
    // A queued or sending broadcast moves on by itself: follow it.
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      return status === 'queued' || status === 'sending' || status === 'scheduled' ? 2000 : false;
    },
  });
  const b = broadcast.data;
  return (
    <>
      <PageHeader
        title={b ? b.name || 'Untitled broadcast' : 'Broadcast'}
        back={{ to: '/broadcasts', label: 'Broadcasts' }}
        actions={b ? <StatusBadge status={b.status} /> : null}
      />
      <ErrorMessage error={broadcast.error} />
      {broadcast.isLoading || !b ? (
        broadcast.error ? null : (
          <Loading />
        )
      ) : isDraft(b) ? (
        <>
          {/* Keyed by the saved content's identity: a save reloads the editor's baseline. */}
          <BroadcastEditor key={b.id} broadcast={b} onDirty={onDirty} />
          <ChecklistCard broadcastId={b.id} stale={dirty} />
          <SendCard broadcast={b} blockedReason={dirty ? 'Save the draft before sending it.' : null} />
        </>
      ) : (
        <>
          <SummaryCard broadcast={b} />
          {hasResults(b) ? <ResultsCard broadcast={b} /> : null}
        </>
      )}
    </>
  );
}
