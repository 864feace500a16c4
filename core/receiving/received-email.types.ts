/** Why a message was recorded for a team but not stored (spec: Received email, dropped_reason). */
export const DROPPED_REASONS = ['team_suspended'] as const;
export type DroppedReason = (typeof DROPPED_REASONS)[number];

/** Attachment metadata of a received email; the content stays in the raw message. */
export type ReceivedAttachment = {
  id: string;
  /** Position among the parsed message's attachments: how the content is found again. */
  index: number;
  filename: string | null;
  contentType: string;
  contentDisposition: string | null;
  contentId: string | null;
  size: number;
};

/** SPF, DKIM, DMARC and ARC as mailauth computed them at receipt, and the header it wrote. */
export type AuthenticationResults = {
  spf: string | null;
  dkim: string[];
  dmarc: string | null;
  arc: string | null;
  header: string;
};

export type ReceivedEmail = {
  id: string;
  teamId: string;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  /** The envelope recipients that belong to this team. */
  receivedFor: string[];
  subject: string;
  messageId: string;
  attachments: ReceivedAttachment[];
  authentication: AuthenticationResults | null;
  envelopeFrom: string;
  remoteIp: string | null;
  droppedReason: DroppedReason | null;
  /** Name of the raw message in the blob store; null when dropped. */
  rawBlob: string | null;
  sizeBytes: number;
  createdAt: Date;
  /**
   * The Message-IDs the message refers to (In-Reply-To, then References newest first), read at
   * receipt for the shared inboxes' threading; not a column of the received email's row.
   */
  references?: string[];
};

/** What the inbound MX hands over for one message: the SMTP envelope and the client. */
export type InboundEnvelope = {
  mailFrom: string;
  recipients: string[];
  remoteIp: string | null;
  helo: string | null;
  tls: boolean;
};
