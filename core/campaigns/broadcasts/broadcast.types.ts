export const BROADCAST_STATUSES = ['draft', 'scheduled', 'queued', 'sending', 'sent', 'canceled', 'failed'] as const;
export type BroadcastStatus = (typeof BROADCAST_STATUSES)[number];

export type Broadcast = {
  id: string;
  teamId: string;
  /** Dashboard label, not shown to recipients. */
  name: string | null;
  segmentId: string | null;
  /** Restricts recipients to those opted in to it. */
  topicId: string | null;
  from: string | null;
  subject: string | null;
  replyTo: string[];
  previewText: string | null;
  html: string | null;
  text: string | null;
  status: BroadcastStatus;
  scheduledAt: Date | null;
  sentAt: Date | null;
  /** The last contact id whose page the fan-out committed. */
  cursor: string | null;
  failureReason: string | null;
  createdAt: Date;
  updatedAt: Date;
};

/** Why a segment member got no email. */
export const EXCLUSIONS = ['unsubscribed', 'topic_opt_out', 'suppressed', 'refused'] as const;
export type Exclusion = (typeof EXCLUSIONS)[number];

/** Longest bodies a broadcast may carry (the spec leaves it open; as a transactional send). */
export const MAX_BROADCAST_BODY = 5 * 1024 * 1024;
