import { UnprocessableValidationError } from '../../../lib/errors.js';
import { newId } from '../../../lib/ids.js';
import { EVENT_TYPES, type EventType } from '../log/event.types.js';
import type { WebhookEndpoint } from './webhook.types.js';

/**
 * The event `POST /webhooks/{id}/test` sends. Its `data` has the shape of a real event of that
 * type (docs/webhook-events.md) so a receiver's parser is exercised, with `test: true` at the top
 * of `data`, addresses at example.com (RFC 2606) and fresh ids that name nothing in the appliance:
 * a receiver can tell it apart and ignore it.
 */
const FROM = 'Mailroom test <test@example.com>';
const TO = ['recipient@example.com'];

/** The type asked for, or the endpoint's first subscribed one; refused when it is not subscribed. */
export function testEventType(endpoint: WebhookEndpoint, requested: string | undefined): EventType {
  if (requested === undefined) return endpoint.events[0]!;
  if (!(EVENT_TYPES as readonly string[]).includes(requested))
    throw new UnprocessableValidationError(`"${requested}" is not an event type`, {
      errors: [{ path: 'type', message: `must be one of ${EVENT_TYPES.join(', ')}` }],
    });
  if (!endpoint.events.includes(requested as EventType))
    throw new UnprocessableValidationError(`This endpoint is not subscribed to ${requested}`, {
      errors: [{ path: 'type', message: `must be one of the endpoint's events: ${endpoint.events.join(', ')}` }],
    });
  return requested as EventType;
}

function emailData(type: EventType, at: string): Record<string, unknown> {
  const emailId = newId();
  const data: Record<string, unknown> = {
    email_id: emailId,
    from: FROM,
    to: TO,
    subject: 'Mailroom webhook test',
    message_id: `<${emailId}@example.com>`,
    created_at: at,
  };
  const diagnostic = { message: '550 5.1.1 user unknown (test)', diagnosticCode: ['smtp; 550 5.1.1 user unknown'] };
  const client = { ipAddress: '192.0.2.1', timestamp: at, userAgent: 'Mailroom test' };
  switch (type) {
    case 'email.bounced':
      return { ...data, bounce: { type: 'Permanent', subType: 'General', ...diagnostic } };
    case 'email.suppressed':
      return { ...data, suppressed: { reason: 'suppressed', type: 'Permanent', ...diagnostic } };
    case 'email.opened':
      return { ...data, open: client };
    case 'email.clicked':
      return { ...data, click: { ...client, link: 'https://example.com/' } };
    case 'email.failed':
      return { ...data, failed: { reason: 'test event' } };
    case 'email.delivery_delayed':
      return { ...data, delay: { type: 'MailboxFull', expirationTime: at, delayedRecipients: TO } };
    case 'email.received':
      return { ...data, cc: [], bcc: [], received_for: TO, attachments: [] };
    default:
      return data;
  }
}

function otherData(type: EventType, at: string): Record<string, unknown> {
  const id = newId();
  if (type.startsWith('domain.'))
    return { object: 'domain', id, name: 'example.com', status: 'verified', created_at: at, region: 'us-east-1' };
  if (type.startsWith('suppression.'))
    return { object: 'suppression', id, email: TO[0], origin: 'manual', source_id: null, created_at: at };
  if (type.startsWith('contact.'))
    return {
      object: 'contact',
      id,
      email: TO[0],
      first_name: 'Test',
      last_name: null,
      created_at: at,
      unsubscribed: false,
      properties: {},
    };
  const status = { started: 'running', completed: 'completed', failed: 'failed' }[type.split('.')[2]!] ?? 'running';
  return {
    object: 'automation_run',
    id,
    automation_id: newId(),
    contact_id: newId(),
    status,
    ...(status === 'failed' ? { error: 'test event' } : {}),
    created_at: at,
  };
}

export function testEventData(type: EventType, now: Date): Record<string, unknown> {
  const at = now.toISOString();
  return { test: true, ...(type.startsWith('email.') ? emailData(type, at) : otherData(type, at)) };
}
