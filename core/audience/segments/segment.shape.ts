import type { Segment, SegmentMetrics } from './segment.types.js';

/** List items carry no filter (spec). */
export function publicSegmentItem(s: Segment) {
  return { id: s.id, name: s.name, created_at: s.createdAt.toISOString() };
}

export function publicSegment(s: Segment) {
  return {
    object: 'segment' as const,
    id: s.id,
    name: s.name,
    filter: s.filter,
    created_at: s.createdAt.toISOString(),
  };
}

export function publicSegmentMetrics(segmentId: string, m: SegmentMetrics) {
  return { object: 'segment_metrics' as const, segment_id: segmentId, ...m };
}
