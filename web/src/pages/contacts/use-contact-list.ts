import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, type List } from '../../api/client';
import type { ContactItem } from './contact-types';

const LIMIT = 25;

/**
 * Cursor pages of GET /contacts, newest first, optionally only addresses starting with `q` (the
 * API reads both on the (team, address) and (team, id) indexes, so a page stays one index range
 * at a million contacts). The spec's contact list carries no `has_more`: a full page means there
 * may be another, and an empty "Older" page says so.
 */
export function useContactList(q: string) {
  const [cursors, setCursors] = useState<string[]>([]);
  useEffect(() => setCursors([]), [q]);
  const after = cursors.at(-1);
  const query = useQuery({
    queryKey: ['/contacts', 'list', q, after ?? null],
    queryFn: ({ signal }) =>
      api.get<List<ContactItem>>('/contacts', { query: { q: q || undefined, limit: LIMIT, after }, signal }),
    placeholderData: keepPreviousData,
  });
  const rows = query.data?.data ?? [];
  return {
    ...query,
    rows,
    isEmpty: !query.isLoading && !query.error && rows.length === 0 && cursors.length === 0,
    hasPrevious: cursors.length > 0,
    hasNext: rows.length === LIMIT,
    isFetching: query.isFetching,
    next: () => {
      const last = rows.at(-1);
      if (last) setCursors((list) => [...list, last.id]);
    },
    previous: () => setCursors((list) => list.slice(0, -1)),
  };
}
