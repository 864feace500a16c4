/**
 * `data` of the webhook events whose resources are built in later issues (contacts, received
 * mail, automations). Their emitters record these shapes with EventService.record, in the
 * transaction of the change, exactly as domains and suppressions record their public shape:
 * `object`, `id` and the resource's public fields. email.received follows the other email.*
 * events instead (`email_id`, no `object`), as the SDK's EmailReceivedEvent does.
 */

export type ContactPayloadInput = {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  unsubscribed: boolean;
  properties: Record<string, string | number | null>;
  segmentIds: string[];
  createdAt: Date;
  updatedAt: Date;
};

/** contact.created, contact.updated, contact.deleted (the contact as it was). */
export function contactEventData(contact: ContactPayloadInput): Record<string, unknown> {
  return {
    object: 'contact',
    id: contact.id,
    email: contact.email,
    first_name: contact.firstName,
    last_name: contact.lastName,
    unsubscribed: contact.unsubscribed,
    properties: contact.properties,
    segment_ids: contact.segmentIds,
    created_at: contact.createdAt.toISOString(),
    updated_at: contact.updatedAt.toISOString(),
  };
}

export type ReceivedEmailPayloadInput = {
  id: string;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  /** The addresses of this team's receiving domains the message was accepted for (envelope). */
  receivedFor: string[];
  subject: string;
  messageId: string;
  attachments: Array<{ id: string; filename: string | null; contentType: string; contentDisposition: string | null; contentId: string | null; size: number }>;
  createdAt: Date;
};

/** email.received: the message's envelope and headers, never its bodies (fetch those by id). */
export function receivedEmailEventData(email: ReceivedEmailPayloadInput): Record<string, unknown> {
  return {
    email_id: email.id,
    created_at: email.createdAt.toISOString(),
    from: email.from,
    to: email.to,
    cc: email.cc,
    bcc: email.bcc,
    reply_to: email.replyTo,
    received_for: email.receivedFor,
    subject: email.subject,
    message_id: email.messageId,
    attachments: email.attachments.map((a) => ({
      id: a.id,
      filename: a.filename,
      content_type: a.contentType,
      content_disposition: a.contentDisposition,
      content_id: a.contentId,
      size: a.size,
    })),
  };
}

export type AutomationRunPayloadInput = {
  id: string;
  automationId: string;
  /** The automation version the run pinned. */
  version: number;
  contactId: string;
  /** The event that enrolled the contact (a custom event name or an `svc:` platform trigger). */
  trigger: string;
  status: 'running' | 'completed' | 'failed';
  /** For automation.run.failed: the step that failed and why. */
  error: { step_key: string; message: string } | null;
  createdAt: Date;
  endedAt: Date | null;
};

/** automation.run.started, automation.run.completed, automation.run.failed. */
export function automationRunEventData(run: AutomationRunPayloadInput): Record<string, unknown> {
  return {
    object: 'automation_run',
    id: run.id,
    automation_id: run.automationId,
    version: run.version,
    contact_id: run.contactId,
    trigger: run.trigger,
    status: run.status,
    error: run.error,
    created_at: run.createdAt.toISOString(),
    ended_at: run.endedAt ? run.endedAt.toISOString() : null,
  };
}
