/** Where one recipient's copy of an email is in the outbound queue. */
export const DELIVERY_STATES = [
  'queued',
  'deferred',
  'sending',
  'delivered',
  'bounced',
  'held',
  'suppressed',
  'failed',
] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** Transactional mail is claimed first and from slots bulk mail (broadcasts) cannot take. */
export type Lane = 'transactional' | 'bulk';

export type Delivery = {
  id: string;
  emailId: string;
  teamId: string;
  domainId: string;
  recipient: string;
  recipientDomain: string;
  lane: Lane;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: Date;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  egressIp: string | null;
  lastReply: string | null;
  delayNotified: boolean;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
};

/** What one attempt did, kept for the operator (transcript bounded in size). */
export type AttemptRecord = {
  egressIp: string | null;
  mxHost: string | null;
  reply: string | null;
  transcript: string | null;
  durationMs: number;
};

export type BounceDetails = { type: string; subType: string; message: string; diagnosticCode: string[] };

/** Which deliveries an operator command acts on. */
export type QueueFilter = { emailId?: string; recipientDomain?: string; teamId?: string };
