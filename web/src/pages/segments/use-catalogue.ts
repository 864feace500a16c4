import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import type { PropertyDef, TopicDef } from './segment-types';

/** What conditions can name: the team's declared properties and its topics (the first hundred each). */
export function useFilterCatalogue() {
  const properties = useQuery({
    queryKey: ['/contact-properties', 'all'],
    queryFn: ({ signal }) => api.get<List<PropertyDef>>('/contact-properties', { query: { limit: 100 }, signal }),
    staleTime: 30_000,
  });
  const topics = useQuery({
    queryKey: ['/topics', 'all'],
    queryFn: ({ signal }) => api.get<List<TopicDef>>('/topics', { query: { limit: 100 }, signal }),
    staleTime: 30_000,
  });
  return {
    properties: properties.data?.data ?? [],
    topics: topics.data?.data ?? [],
    isLoading: properties.isLoading || topics.isLoading,
    error: properties.error ?? topics.error,
  };
}
