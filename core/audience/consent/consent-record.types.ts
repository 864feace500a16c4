export const CONSENT_SOURCES = [
  'api',
  'import',
  'preference_page',
  'one_click',
  'mailto',
  'complaint',
  'automation',
] as const;
export type ConsentSource = (typeof CONSENT_SOURCES)[number];

/** Where a consent change came from: the source, and the requester when known. */
export type ConsentOrigin = { source: ConsentSource; ip?: string | null; userAgent?: string | null };

export type ConsentRecord = {
  id: string;
  teamId: string;
  /** Null once the contact was erased; the record stays under `emailHash`. */
  contactId: string | null;
  emailHash: string;
  kind: 'unsubscribed' | 'topic';
  topicId: string | null;
  /** unsubscribed: 'unsubscribed' | 'subscribed'; topic: 'opt_in' | 'opt_out'. */
  value: string;
  source: ConsentSource;
  ip: string | null;
  userAgent: string | null;
  createdAt: Date;
};

/** How long consent records are kept (spec: three years). */
export const CONSENT_RETENTION_DAYS = 3 * 365;
