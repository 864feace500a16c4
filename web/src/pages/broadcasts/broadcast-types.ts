/** The API's broadcast shapes (api/routes/campaigns/broadcasts.routes.ts), as the dashboard reads them. */
export type BroadcastStatus = 'draft' | 'scheduled' | 'queued' | 'sending' | 'sent' | 'canceled' | 'failed';

export type BroadcastItem = {
  id: string;
  name: string | null;
  segment_id: string | null;
  audience_id: string | null;
  status: BroadcastStatus;
  created_at: string;
  scheduled_at?: string;
  sent_at?: string;
};

export type Broadcast = BroadcastItem & {
  object: 'broadcast';
  topic_id: string | null;
  from: string | null;
  subject: string | null;
  reply_to: string[] | null;
  preview_text: string | null;
  html: string | null;
  text: string | null;
};

export type ChecklistItem = { check: string; passed: boolean; message: string };
export type Checklist = {
  object: 'broadcast_checklist';
  broadcast_id: string;
  ready: boolean;
  checks: ChecklistItem[];
};

export type BroadcastPreview = {
  object: 'broadcast_preview';
  broadcast_id: string;
  contact_id: string;
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
};

export type SegmentItem = { id: string; name: string; created_at: string };
export type ContactItem = { id: string; email: string; first_name: string | null; last_name: string | null };
export type ContactProperty = { id: string; key: string; type: string; fallback_value: string | number | null };

export const RECIPIENT_TYPES = [
  'sent',
  'delivered',
  'opened',
  'clicked',
  'bounced',
  'complained',
  'unsubscribed',
  'suppressed',
] as const;
export type RecipientType = (typeof RECIPIENT_TYPES)[number];

export type Recipient = {
  id: string;
  contact_id: string | null;
  email: string;
  count?: number;
  clicked_links?: { url: string; clicks: number }[];
  bounce_type?: 'permanent' | 'transient' | 'undetermined';
};

export type ClickedLink = { id: string; url: string; clicks: number; unique_clicks: number };

/** Whether the broadcast can still change (only a draft can be edited or sent). */
export const isDraft = (b: { status: BroadcastStatus }) => b.status === 'draft';
/** Whether a cancel is accepted (until it is sent). */
export const isCancelable = (b: { status: BroadcastStatus }) =>
  b.status === 'scheduled' || b.status === 'queued' || b.status === 'sending';
/** Whether there are results to show (recipients exist once the fan-out starts). */
export const hasResults = (b: { status: BroadcastStatus }) =>
  b.status === 'sending' || b.status === 'sent' || b.status === 'canceled' || b.status === 'failed';
