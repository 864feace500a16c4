/**
 * The shapes the email pages read, as the API serializes them (api/serializers/email.serializer.ts,
 * email-activity.serializer.ts, api/routes/emails/attachments.routes.ts).
 */
export type Tag = { name: string; value: string };

export type EmailItem = {
  object: 'email';
  id: string;
  from: string;
  to: string[];
  cc: string[] | null;
  bcc: string[] | null;
  reply_to: string[] | null;
  subject: string;
  message_id: string | null;
  last_event: string;
  scheduled_at: string | null;
  created_at: string;
  tags?: Tag[];
  topic_id: string | null;
};

export type EmailDetail = EmailItem & {
  html: string | null;
  text: string | null;
  template_id: string | null;
  template_version_id: string | null;
};

export type EmailEvent = {
  object: 'event';
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
};

export type DeliveryAttempt = {
  at: string;
  outcome: string;
  egress_ip: string | null;
  egress_region: string | null;
  egress_helo: string | null;
  mx_host: string | null;
  tls: { used: boolean | null; version: string | null; cipher: string | null };
  reply: { code: number | null; enhanced_code: string | null; text: string; raw: string } | null;
  duration_ms: number;
  transcript?: string | null;
};

export type Delivery = {
  object: 'delivery';
  id: string;
  recipient: string;
  state: string;
  attempts: number;
  next_attempt_at: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
  attempt_log: DeliveryAttempt[];
};

export type EmailWebhookDelivery = {
  object: 'webhook_delivery';
  id: string;
  webhook_id: string;
  endpoint: string | null;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_attempt_at: string | null;
  created_at: string;
};

export type Attachment = {
  object: 'attachment';
  id: string;
  filename?: string | null;
  size: number;
  content_type: string;
  content_disposition: string | null;
  content_id?: string | null;
  download_url?: string;
  expires_at?: string;
};

/** The last events after which nothing more happens to an email without a person acting. */
const SETTLED = new Set([
  'delivered',
  'bounced',
  'canceled',
  'failed',
  'suppressed',
  'complained',
  'opened',
  'clicked',
]);
/** Delivery states still moving through the queue. */
const MOVING = new Set(['queued', 'deferred', 'sending']);

/**
 * Whether the page should keep asking (the email is queued, scheduled, sent and not yet
 * delivered, or one recipient's copy is still in the queue), and how often: a scheduled email
 * waits for its time, so it is asked about less often.
 */
export function pollInterval(email: EmailItem | undefined, deliveries: Delivery[] | undefined): number | false {
  if (!email) return false;
  if (deliveries?.some((delivery) => MOVING.has(delivery.state))) return 2000;
  if (email.last_event === 'scheduled') return 10_000;
  return SETTLED.has(email.last_event) ? false : 2000;
}

export const formatBytes = (size: number) =>
  size < 1024
    ? `${size} B`
    : size < 1024 * 1024
      ? `${(size / 1024).toFixed(1)} KB`
      : `${(size / 1048576).toFixed(1)} MB`;
