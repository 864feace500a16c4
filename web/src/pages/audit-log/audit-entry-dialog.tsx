import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api } from '../../api/client';
import { Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { CopyButton } from '../../ui/copy-button';
import { Dialog } from '../../ui/dialog';
import { ErrorMessage } from '../../ui/error-message';
import { DescriptionList, Loading } from '../../ui/page';
import { Time } from '../../ui/time';
import { actorTypeLabel, metadataText, type AuditLogEntry } from './audit-types';

/**
 * One entry in full: GET <path>/:id when the list has a detail route (the team's), else the row
 * as listed (the operator's list carries everything). Opened from the table (?entry=<id>).
 */
export function AuditEntryDialog({
  id,
  path,
  fromList,
  onClose,
}: {
  id: string;
  path: string | null;
  fromList: AuditLogEntry | undefined;
  onClose: () => void;
}) {
  const detail = useQuery({
    queryKey: [path, 'detail', id],
    enabled: Boolean(id && path),
    queryFn: () => api.get<AuditLogEntry>(`${path}/${encodeURIComponent(id)}`),
  });
  const entry = detail.data ?? (path ? undefined : fromList);
  return (
    <Dialog
      open={Boolean(id)}
      title={entry ? `Audit entry: ${entry.action}` : 'Audit entry'}
      onClose={onClose}
      footer={<Button onClick={onClose}>Close</Button>}
    >
      {detail.isLoading ? <Loading /> : null}
      <ErrorMessage error={detail.error} />
      {entry ? <EntryDetails entry={entry} /> : null}
    </Dialog>
  );
}

function EntryDetails({ entry }: { entry: AuditLogEntry }) {
  const metadata = Object.entries(entry.metadata ?? {});
  return (
    <div className="audit-detail">
      <DescriptionList
        items={[
          ['Action', <code key="action">{entry.action}</code>],
          ['When', <Time key="when" value={entry.created_at} mode="absolute" />],
          [
            'Actor',
            <span key="actor">
              {entry.actor.name ?? <span className="muted">unnamed</span>}{' '}
              <Badge tone="info">{actorTypeLabel(entry.actor.type)}</Badge>
              {entry.actor.id ? <div className="muted mono break-all">{entry.actor.id}</div> : null}
            </span>,
          ],
          [
            'Resource',
            <span key="resource">
              {entry.resource.type}
              {entry.resource.id ? <div className="muted mono break-all">{entry.resource.id}</div> : null}
            </span>,
          ],
          ...(entry.team_id ? [['Team', <code key="team">{entry.team_id}</code>] as [ReactNode, ReactNode]] : []),
          ['IP address', entry.ip ? <code key="ip">{entry.ip}</code> : '—'],
          [
            'User agent',
            entry.user_agent ? (
              <code key="ua" className="break-all">
                {entry.user_agent}
              </code>
            ) : (
              '—'
            ),
          ],
          [
            'Entry id',
            <span key="id">
              <code>{entry.id}</code> <CopyButton value={entry.id} label="Copy the entry id" />
            </span>,
          ],
        ]}
      />
      <h3 className="audit-detail-title">Details</h3>
      {metadata.length === 0 ? (
        <p className="muted">No further details were recorded.</p>
      ) : (
        <DescriptionList
          items={metadata.map(([name, value]) => [<code key={name}>{name}</code>, metadataText(value)])}
        />
      )}
    </div>
  );
}
