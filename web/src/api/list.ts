import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, type List } from './client';

/**
 * One page of a cursor-paged API list (`limit`, `after`, `has_more`), with the cursors walked so
 * far kept for "Newer". Filters are part of the key: changing one starts again at the first
 * page. Nothing here counts the list: the API never does either.
 */
export function useCursorList<T extends { id: string }>(
  path: string,
  filters: Record<string, string | number | boolean | undefined> = {},
  options: { limit?: number; refetchInterval?: number | false } = {},
) {
  const limit = options.limit ?? 25;
  const [cursors, setCursors] = useState<string[]>([]);
  const filterKey = JSON.stringify(filters);
  useEffect(() => setCursors([]), [path, filterKey]);
  const after = cursors.at(-1);
  const query = useQuery({
    queryKey: [path, 'list', filters, limit, after ?? null],
    queryFn: ({ signal }) => api.get<List<T>>(path, { query: { ...filters, limit, after }, signal }),
    placeholderData: keepPreviousData,
    refetchInterval: options.refetchInterval,
  });
  const rows = query.data?.data ?? [];
  return {
    ...query,
    rows,
    hasPrevious: cursors.length > 0,
    /** Nothing at all (not a filter's empty page after paging): the page shows its empty state. */
    isEmpty: !query.isLoading && !query.error && rows.length === 0 && cursors.length === 0,
    hasNext: Boolean(query.data?.has_more) && rows.length > 0,
    next: () => {
      const last = rows.at(-1);
      if (last) setCursors((list) => [...list, last.id]);
    },
    previous: () => setCursors((list) => list.slice(0, -1)),
  };
}
