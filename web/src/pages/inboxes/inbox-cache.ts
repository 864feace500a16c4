import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { inboxPath } from './inbox-types';

/**
 * Everything read about one inbox (its threads, labels, drafts, counts) read again after a
 * change: the queries are keyed by their API path, so every key under `/inboxes/{id}` goes, and
 * the inbox list (its unread counts) with them.
 */
export function useRefreshInbox(inboxId: string) {
  const client = useQueryClient();
  return useCallback(async () => {
    const prefix = inboxPath(inboxId);
    await client.invalidateQueries({
      predicate: (query) => {
        const first = query.queryKey[0];
        return typeof first === 'string' && (first === '/inboxes' || first.startsWith(prefix));
      },
    });
  }, [client, inboxId]);
}
