/** The API's segment shapes (document 2) as the pages read them. */
export type SegmentItem = { id: string; name: string; created_at: string };
export type Segment = SegmentItem & { object: 'segment'; filter: Record<string, unknown> | null };
export type SegmentCounts = { contacts: number; subscribed: number; unsubscribed: number };
export type SegmentMember = {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed?: boolean;
  created_at?: string;
};
export type PropertyDef = { id: string; key: string; type: 'string' | 'number' };
export type TopicDef = { id: string; name: string };
