import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import type { ContactItem, ContactProperty, SegmentItem } from './broadcast-types';

/** The team's segments (the first hundred: a broadcast picks one by name). */
export function useSegments() {
  return useQuery({
    queryKey: ['/segments', 'all'],
    queryFn: ({ signal }) => api.get<List<SegmentItem>>('/segments', { query: { limit: 100 }, signal }),
    staleTime: 30_000,
  });
}

/** The team's declared contact properties: the merge variables beyond the built-in ones. */
export function useContactProperties() {
  return useQuery({
    queryKey: ['/contact-properties', 'all'],
    queryFn: ({ signal }) => api.get<List<ContactProperty>>('/contact-properties', { query: { limit: 100 }, signal }),
    staleTime: 30_000,
  });
}

/** Contacts to preview for: the segment's first fifty (or the team's, with no segment chosen). */
export function usePreviewContacts(segmentId: string) {
  return useQuery({
    queryKey: ['/contacts', 'preview', segmentId],
    queryFn: ({ signal }) =>
      api.get<List<ContactItem>>('/contacts', { query: { limit: 50, segment_id: segmentId || undefined }, signal }),
  });
}
