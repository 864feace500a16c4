import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import type { ContactProperty } from './property-types';

/**
 * Every declared property of the team, for typed inputs. A team declares a handful (the key is a
 * merge variable), so the first page of 100 is all of them in practice; `has_more` is kept so a
 * page can say when it is not.
 */
export function useProperties() {
  return useQuery({
    queryKey: ['/contact-properties', 'all'],
    queryFn: ({ signal }) => api.get<List<ContactProperty>>('/contact-properties', { query: { limit: 100 }, signal }),
  });
}
