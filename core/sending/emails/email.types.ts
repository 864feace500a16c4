export type EmailLastEvent =
  | 'queued'
  | 'scheduled'
  | 'canceled'
  | 'sent'
  | 'delivered'
  | 'delivery_delayed'
  | 'bounced'
  | 'complained'
  | 'failed'
  | 'opened'
  | 'clicked'
  | 'suppressed';

export type Email = {
  id: string;
  teamId: string;
  domainId: string;
  apiKeyId: string | null;
  fromHeader: string;
  fromAddress: string;
  to: string[];
  cc: string[] | null;
  bcc: string[] | null;
  replyTo: string[] | null;
  suppressedRecipients: string[];
  subject: string;
  tags: Record<string, string> | null;
  /** Custom headers of the send, repeated in every email.* event. */
  headers: Record<string, string> | null;
  templateId: string | null;
  templateVersionId: string | null;
  topicId: string | null;
  /** The broadcast this email was created for; null for transactional mail (it then takes the bulk lane). */
  broadcastId: string | null;
  messageId: string;
  lastEvent: EmailLastEvent;
  scheduledAt: Date | null;
  sizeBytes: number;
  spool: { segment: string; offset: number; length: number };
  createdAt: Date;
  updatedAt: Date;
};

/** Bodies kept beside the MIME in the blob store, for GET /emails/{id}. */
export type EmailBodies = { html: string | null; text: string | null };

export type EmailAttachment = {
  id: string;
  emailId: string;
  teamId: string;
  position: number;
  filename: string | null;
  contentType: string;
  contentDisposition: 'inline' | 'attachment';
  contentId: string | null;
  size: number;
  spool: { segment: string; offset: number; length: number };
  createdAt: Date;
};
