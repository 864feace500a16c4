import type { SegmentFilter } from './segment-filter.js';

export type Segment = {
  id: string;
  teamId: string;
  name: string;
  /** Null: explicit membership only. Never changes after creation. */
  filter: SegmentFilter | null;
  createdAt: Date;
};

export type SegmentMetrics = { contacts: number; subscribed: number; unsubscribed: number };
