import type { Attachment } from '../emails/email-types';

/** A received email as GET /emails/receiving lists it (api/serializers/received-email.serializer.ts). */
export type ReceivedItem = {
  id: string;
  to: string[];
  from: string;
  subject: string;
  message_id: string;
  bcc: string[];
  cc: string[];
  reply_to: string[];
  dropped_reason: string | null;
  created_at: string;
  attachments: Attachment[];
};

/** GET /emails/receiving/{id}: the bodies, headers, a signed link to the raw source, and authentication. */
export type ReceivedDetail = ReceivedItem & {
  object: 'email';
  received_for: string[];
  html: string | null;
  text: string | null;
  headers: Record<string, string> | null;
  raw: { download_url: string; expires_at: string } | null;
  authentication: {
    spf: string | null;
    dkim: string[];
    dmarc: string | null;
    arc: string | null;
    header: string;
  } | null;
};
