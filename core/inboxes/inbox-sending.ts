import type { Knex } from 'knex';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { newId } from '../../lib/ids.js';
import { InvalidAttachmentError, MissingRequiredFieldError } from '../../lib/errors.js';
import { mailboxAddress } from '../shared/addresses/mailbox.js';
import { prefixedSubject, replyReferences } from '../shared/addresses/message-references.js';
import { assertSendableFile } from './inbox-attachment-rules.js';
import type { SendEmailInput } from '../sending/emails/email.schemas.js';
import type { InboxConversations, SentFromInbox } from './inbox-conversations.js';
import type { StoredMessage } from './inbox-thread.repository.js';
import type { InboxThreadService } from './inbox-thread.service.js';
import type { ForwardInput, ReplyInput } from './inbox.schemas.js';
import type { Inbox, InboxActor, InboxThread } from './inbox.types.js';

/** What the sending group answers for an accepted email (its id, Message-ID and what it carries). */
export type AcceptedFromInbox = {
  id: string;
  messageId: string;
  createdAt: Date;
};

export type InboxSendPort<C> = {
  /** The email-acceptance step (idempotency, quotas, suppressions, DKIM, the MTA), joining `unit`. */
  accept: (caller: C, input: SendEmailInput, unit: UnitOfWork) => Promise<AcceptedFromInbox>;
  /** The attachments of a thread's email with their bytes (a forward sends them on). */
  originalAttachments: (
    message: StoredMessage,
  ) => Promise<Array<{ filename: string | null; contentType: string; bytes: Buffer | null }>>;
};

/** Files and bytes a forward may carry with the original's attachments (the SDK's comment). */
export const FORWARD_MAX_FILES = 10;
export const FORWARD_MAX_BYTES = 25 * 1024 * 1024;

const bracketed = (id: string) => `<${id}>`;

/** The From of mail sent from an inbox: its sender name, if set, and its address. */
export function inboxFrom(inbox: Inbox): string {
  return inbox.fromName ? `${JSON.stringify(inbox.fromName)} <${inbox.emailAddress}>` : inbox.emailAddress;
}

/** In-Reply-To and References of a message answering (or forwarding) `parent` (RFC 5322 3.6.4). */
export function threadingHeaders(parent: StoredMessage): Record<string, string> {
  if (!parent.rfcMessageId) return {};
  const references = replyReferences([...parent.references].reverse(), parent.rfcMessageId);
  return { 'In-Reply-To': bracketed(parent.rfcMessageId), References: references.map(bracketed).join(' ') };
}

/**
 * Mail sent from an inbox: replies and forwards of a thread's emails, and drafts. Each goes
 * through the ordinary acceptance step and joins its thread in the same unit of work.
 */
export class InboxSending<C> {
  constructor(
    private readonly deps: {
      port: InboxSendPort<C>;
      threads: InboxThreadService;
      conversations: InboxConversations;
    },
  ) {}

  /** Sends `input` from the inbox and files it in `thread` (or a new thread), in `unit`. */
  async send(
    caller: C,
    inbox: Inbox,
    thread: InboxThread | null,
    input: SendEmailInput,
    unit: UnitOfWork,
    event: {
      source: InboxActor;
      extra?: Record<string, unknown>;
      then?: (trx: Knex.Transaction, thread: InboxThread, emailId: string) => Promise<void>;
    },
  ): Promise<AcceptedFromInbox> {
    const accepted = await this.deps.port.accept(caller, input, unit);
    const headers = input.headers ?? {};
    const sent: SentFromInbox = {
      id: accepted.id,
      messageId: accepted.messageId,
      from: input.from ?? inbox.emailAddress,
      to: input.to,
      cc: input.cc ?? [],
      bcc: input.bcc ?? [],
      replyTo: input.reply_to ?? [],
      subject: input.subject ?? '',
      // Ids here only mark the files; reads list the sent email's own attachments (with their ids).
      attachments: (input.attachments ?? []).map((a) => ({
        id: newId(),
        filename: a.filename ?? null,
        size: a.content !== undefined ? Buffer.from(a.content, 'base64').length : null,
      })),
      references: (headers.References ?? '').match(/<[^<>]+>/g)?.map((id) => id.slice(1, -1)) ?? [],
      createdAt: accepted.createdAt,
    };
    unit.write('inbox_sent', { inbox, thread, sent, event }, async (trx, payloads) => {
      for (const payload of payloads) {
        const filed = await this.deps.conversations.recordSent(
          trx,
          payload.inbox,
          payload.thread
            ? ((await this.deps.threads.find(payload.inbox, payload.thread.id, trx).catch(() => null)) ?? null)
            : null,
          payload.sent,
          payload.event.source,
          payload.event.extra,
        );
        await payload.event.then?.(trx, filed, payload.sent.id);
      }
    });
    return accepted;
  }

  /** A reply to one email of a thread: to its Reply-To (or sender), all of its recipients with reply_all. */
  async reply(
    caller: C,
    inbox: Inbox,
    threadId: string,
    emailId: string,
    input: ReplyInput,
    unit: UnitOfWork,
    source: InboxActor,
  ) {
    if (input.html === undefined && input.text === undefined)
      throw new MissingRequiredFieldError('Send html, text or both', {
        errors: [{ path: 'html', message: 'html or text is required' }],
      });
    assertSendableInputs(input.attachments);
    const thread = await this.deps.threads.find(inbox, threadId);
    const parent = await this.deps.threads.message(inbox, threadId, emailId);
    const to = replyRecipients(parent);
    const others = input.reply_all
      ? [...parent.to, ...parent.cc].filter(
          (one) =>
            mailboxAddress(one) !== inbox.emailAddress && !to.some((t) => mailboxAddress(t) === mailboxAddress(one)),
        )
      : [];
    const cc = dedupe([...others, ...(input.cc ?? [])]);
    return this.send(
      caller,
      inbox,
      thread,
      {
        from: inboxFrom(inbox),
        to,
        ...(cc.length > 0 ? { cc } : {}),
        ...(input.bcc ? { bcc: input.bcc } : {}),
        reply_to: [inbox.emailAddress],
        subject: input.subject ?? prefixedSubject('Re', parent.subject),
        ...(input.html !== undefined ? { html: input.html } : {}),
        ...(input.text !== undefined ? { text: input.text } : {}),
        ...(input.attachments ? { attachments: input.attachments } : {}),
        headers: { ...(input.headers ?? {}), ...threadingHeaders(parent) },
      },
      unit,
      { source },
    );
  }

  /** A forward of one email of a thread, with its attachments, to new recipients; it stays in the thread. */
  async forward(
    caller: C,
    inbox: Inbox,
    threadId: string,
    emailId: string,
    input: ForwardInput,
    unit: UnitOfWork,
    source: InboxActor,
  ) {
    assertSendableInputs(input.attachments);
    const thread = await this.deps.threads.find(inbox, threadId);
    const parent = await this.deps.threads.message(inbox, threadId, emailId);
    const [bodies, originals] = await Promise.all([
      this.deps.threads.bodiesOf(parent),
      this.deps.port.originalAttachments(parent),
    ]);
    const added = input.attachments ?? [];
    if (originals.length + added.length > FORWARD_MAX_FILES)
      throw new InvalidAttachmentError(
        `A forward carries at most ${FORWARD_MAX_FILES} files, the original's ${originals.length} included`,
        { errors: [{ path: 'attachments', message: `at most ${FORWARD_MAX_FILES - originals.length} more files` }] },
      );
    const originalBytes = originals.reduce((sum, one) => sum + (one.bytes?.length ?? 0), 0);
    const addedBytes = added.reduce((sum, one) => sum + Buffer.from(one.content ?? '', 'base64').length, 0);
    if (originalBytes + addedBytes > FORWARD_MAX_BYTES)
      throw new InvalidAttachmentError(
        'The attachments of a forward, the original’s included, may total at most 25 MB',
        {
          errors: [{ path: 'attachments', message: 'at most 25 MB of content in all' }],
        },
      );
    const quoted = forwardedBlock(parent, bodies);
    return this.send(
      caller,
      inbox,
      thread,
      {
        from: inboxFrom(inbox),
        to: input.to,
        ...(input.cc ? { cc: input.cc } : {}),
        ...(input.bcc ? { bcc: input.bcc } : {}),
        reply_to: [inbox.emailAddress],
        subject: input.subject ?? prefixedSubject('Fwd', parent.subject),
        text: `${input.text ?? ''}${input.text ? '\n\n' : ''}${quoted.text}`,
        ...(input.html !== undefined || bodies.html !== null ? { html: `${input.html ?? ''}${quoted.html}` } : {}),
        attachments: [
          ...originals
            .filter((one) => one.bytes !== null)
            .map((one) => ({
              filename: one.filename ?? 'attachment',
              content: one.bytes!.toString('base64'),
              content_type: one.contentType,
            })),
          ...added,
        ],
        headers: { ...(input.headers ?? {}), ...threadingHeaders(parent) },
      },
      unit,
      { source },
    );
  }
}

/** No empty file and no blocked type among the files a reply or forward adds (a URL's file is checked when fetched). */
function assertSendableInputs(attachments: ReplyInput['attachments']): void {
  for (const [i, file] of (attachments ?? []).entries())
    assertSendableFile(
      {
        filename: file.filename ?? file.path?.split('/').pop() ?? null,
        size: file.content !== undefined ? Buffer.from(file.content, 'base64').length : null,
      },
      `attachments.${i}`,
    );
}

/** Where a reply goes: the Reply-To of a received email (or its sender); a sent email's own recipients. */
export function replyRecipients(parent: StoredMessage): string[] {
  if (parent.direction === 'outbound') return parent.to;
  return parent.replyTo.length > 0 ? parent.replyTo : [parent.from];
}

function dedupe(list: string[]): string[] {
  const seen = new Set<string>();
  return list.filter((one) => {
    const key = mailboxAddress(one);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** The forwarded message as mail clients quote it: a header block, then its body. */
function forwardedBlock(parent: StoredMessage, bodies: { html: string | null; text: string | null }) {
  const lines = [
    '---------- Forwarded message ---------',
    `From: ${parent.from}`,
    `Date: ${parent.receivedAt.toUTCString()}`,
    `Subject: ${parent.subject ?? ''}`,
    `To: ${parent.to.join(', ')}`,
    ...(parent.cc.length > 0 ? [`Cc: ${parent.cc.join(', ')}`] : []),
  ];
  const text = `${lines.join('\n')}\n\n${bodies.text ?? ''}`;
  const html = `<div>${lines.map(escapeHtml).join('<br>')}</div><br>${bodies.html ?? `<pre>${escapeHtml(bodies.text ?? '')}</pre>`}`;
  return { text, html };
}
