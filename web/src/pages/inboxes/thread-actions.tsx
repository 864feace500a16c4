import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import { Badge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading } from '../../ui/page';
import { Time } from '../../ui/time';
import { threadPath, type ThreadAction } from './inbox-types';

const words = (value: string) => value.replace(/[._]/g, ' ');

/** A recorded action's detail in a line: its outcome and what it named (labels, an address, a folder). */
function detailLine(detail: Record<string, unknown> | null): string | null {
  if (!detail) return null;
  const parts = Object.entries(detail)
    .filter(([key, value]) => key !== 'outcome' && value !== null && value !== undefined && !key.endsWith('_id'))
    .map(([key, value]) => `${words(key)}: ${Array.isArray(value) ? value.join(', ') : String(value)}`);
  return parts.length ? parts.join(' · ') : null;
}

/** What was done to the thread and why: the agent's actions with the reasons it gave, oldest first. */
export function ThreadActions({ inboxId, threadId }: { inboxId: string; threadId: string }) {
  const path = `${threadPath(inboxId, threadId)}/actions`;
  const actions = useQuery({
    queryKey: [path],
    queryFn: ({ signal }) => api.get<List<ThreadAction>>(path, { signal }),
    refetchInterval: 30_000,
  });
  return (
    <Card title="Agent actions" id="thread-actions">
      <ErrorMessage error={actions.error} />
      {actions.isLoading ? (
        <Loading label="Loading the actions…" />
      ) : actions.data?.data.length ? (
        <ol className="timeline" aria-label="Actions on this thread">
          {actions.data.data.map((action) => {
            const outcome = typeof action.detail?.outcome === 'string' ? action.detail.outcome : null;
            const line = detailLine(action.detail);
            return (
              <li key={action.id}>
                <strong>{words(action.action)}</strong> <Badge tone="neutral">by {action.source}</Badge>
                {outcome ? (
                  <>
                    {' '}
                    <Badge tone={outcome === 'applied' ? 'good' : outcome === 'failed' ? 'bad' : 'warn'}>
                      {words(outcome)}
                    </Badge>
                  </>
                ) : null}
                <div>
                  <Time value={action.created_at} />
                </div>
                {action.reason ? <div>Reason: {action.reason}</div> : null}
                {line ? <div className="muted">{line}</div> : null}
              </li>
            );
          })}
        </ol>
      ) : actions.error ? null : (
        <EmptyState title="The agent has not acted on this thread">
          <p className="muted">Turn it on under the inbox’s Settings tab.</p>
        </EmptyState>
      )}
    </Card>
  );
}
