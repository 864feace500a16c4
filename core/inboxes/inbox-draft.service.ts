import type { Knex } from 'knex';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { FileBlobStore } from '../../lib/blob-store.js';
import type { Clock } from '../../lib/clock.js';
import {
  InvalidAttachmentError,
  MissingRequiredFieldError,
  NotFoundError,
  ServiceUnavailableError,
  UnprocessableValidationError,
} from '../../lib/errors.js';
import { isUuid, newId } from '../../lib/ids.js';
import type { SafeFetchResult } from '../../lib/net/safe-fetch.js';
import type { EventLog } from '../events/log/event-log.js';
import { prefixedSubject } from '../shared/addresses/message-references.js';
import type { PageQuery } from '../shared/pagination/list-query.js';
import { loadAttachments } from '../sending/emails/attachment-loader.js';
import { assertSendableFile, DRAFT_MAX_BYTES } from './inbox-attachment-rules.js';
import type { DraftFile, InboxDraft, InboxDraftRepository } from './inbox-draft.repository.js';
import { inboxFrom, replyRecipients, threadingHeaders, type InboxSending } from './inbox-sending.js';
import type { InboxThreadService } from './inbox-thread.service.js';
import type { CreateDraftInput, DraftAttachmentInput, UpdateDraftInput } from './inbox.schemas.js';
import { publicThreadSummary } from './inbox.shape.js';
import type { Inbox, InboxActor, InboxThread } from './inbox.types.js';

const BLOBS = 'inbox-drafts';
const CONTENT_FIELDS = ['to', 'cc', 'bcc', 'subject', 'text', 'html', 'attachments'] as const;

export function publicDraft(draft: InboxDraft) {
  return {
    object: 'inbox_draft' as const,
    id: draft.id,
    type: draft.type,
    to: draft.to,
    cc: draft.cc,
    bcc: draft.bcc,
    subject: draft.subject,
    html: draft.html,
    text: draft.text,
    thread_id: draft.threadId,
    reply_to_email_id: draft.replyToEmailId,
    email_id: draft.emailId,
    created_at: draft.createdAt.toISOString(),
    updated_at: draft.updatedAt.toISOString(),
    attachments: draft.attachments.map(({ id, filename, content_type, size }) => ({
      id,
      filename,
      content_type,
      size,
    })),
  };
}

/** The first words of a draft, as a list shows them. */
function snippet(draft: InboxDraft): string | null {
  const source = draft.text ?? draft.html?.replace(/<style[\s\S]*?<\/style>|<[^>]+>/gi, ' ') ?? null;
  const words = source?.replace(/\s+/g, ' ').trim() ?? '';
  return words === '' ? null : words.slice(0, 200);
}

export function publicDraftItem(draft: InboxDraft) {
  const {
    object: _object,
    html: _html,
    text: _text,
    email_id: _email,
    created_at: _created,
    ...rest
  } = publicDraft(draft);
  return { ...rest, snippet: snippet(draft) };
}

/** The draft in inbox.draft.* events: everything but the bodies. */
const eventDraft = (draft: InboxDraft) => {
  const { object: _object, html: _html, text: _text, ...rest } = publicDraft(draft);
  return rest;
};

/**
 * Drafts: standalone, or a reply to one email of a thread. Their files are read (or fetched)
 * when given and kept as blobs; sending one goes through the inbox's sending (the acceptance
 * step) and marks it sent in the same transaction.
 */
export class InboxDraftService<C> {
  constructor(
    private readonly deps: {
      knex: Knex;
      clock: Clock;
      blobs: FileBlobStore;
      events: EventLog;
      drafts: InboxDraftRepository;
      threads: InboxThreadService;
      sending: InboxSending<C>;
      fetchAttachment: (url: string) => Promise<SafeFetchResult>;
    },
  ) {}

  async find(inbox: Inbox, id: string): Promise<InboxDraft> {
    const draft = isUuid(id) ? await this.deps.drafts.find(inbox.id, id.toLowerCase()) : undefined;
    if (!draft) throw new NotFoundError('Draft not found');
    return draft;
  }

  list(inbox: Inbox, page: PageQuery) {
    return this.deps.drafts.list(inbox.id, page);
  }

  async create(inbox: Inbox, input: CreateDraftInput, source: InboxActor): Promise<InboxDraft> {
    if (!CONTENT_FIELDS.some((field) => input[field] !== undefined))
      throw new MissingRequiredFieldError('Send at least one of to, cc, bcc, subject, text, html and attachments', {
        errors: [{ path: '', message: 'a draft needs some content' }],
      });
    if ((input.thread_id === undefined) !== (input.reply_to_email_id === undefined))
      throw new UnprocessableValidationError('A reply draft needs both thread_id and reply_to_email_id', {
        errors: [{ path: input.thread_id ? 'reply_to_email_id' : 'thread_id', message: 'is required with the other' }],
      });
    let thread: InboxThread | null = null;
    if (input.thread_id) {
      thread = await this.deps.threads.find(inbox, input.thread_id);
      await this.deps.threads.message(inbox, thread.id, input.reply_to_email_id!);
    }
    const id = newId();
    const now = this.deps.clock.now();
    const draft: InboxDraft = {
      id,
      inboxId: inbox.id,
      teamId: inbox.teamId,
      type: thread ? 'reply' : 'standalone',
      to: input.to ?? null,
      cc: input.cc ?? [],
      bcc: input.bcc ?? [],
      subject: input.subject ?? null,
      html: input.html ?? null,
      text: input.text ?? null,
      threadId: thread?.id ?? null,
      replyToEmailId: input.reply_to_email_id?.toLowerCase() ?? null,
      emailId: null,
      attachments: await this.storeFiles(id, input.attachments ?? []),
      createdBy: source,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.drafts.insert(draft);
    await this.recordEvent('inbox.draft.created', inbox, draft, source, thread);
    return draft;
  }

  async update(inbox: Inbox, id: string, input: UpdateDraftInput, source: InboxActor): Promise<InboxDraft> {
    if (!CONTENT_FIELDS.some((field) => input[field] !== undefined))
      throw new MissingRequiredFieldError('Send at least one of to, cc, bcc, subject, text, html and attachments', {
        errors: [{ path: '', message: 'at least one field is required' }],
      });
    const draft = await this.find(inbox, id);
    const next: InboxDraft = {
      ...draft,
      ...(input.to !== undefined ? { to: input.to } : {}),
      ...(input.cc !== undefined ? { cc: input.cc ?? [] } : {}),
      ...(input.bcc !== undefined ? { bcc: input.bcc ?? [] } : {}),
      ...(input.subject !== undefined ? { subject: input.subject } : {}),
      ...(input.html !== undefined ? { html: input.html } : {}),
      ...(input.text !== undefined ? { text: input.text } : {}),
      updatedAt: this.deps.clock.now(),
    };
    if (input.attachments !== undefined) next.attachments = await this.storeFiles(draft.id, input.attachments ?? []);
    if (!(await this.deps.drafts.replace(next))) throw new NotFoundError('Draft not found');
    await this.recordEvent('inbox.draft.updated', inbox, next, source, null);
    return next;
  }

  async remove(inbox: Inbox, id: string, source: InboxActor): Promise<InboxDraft> {
    const draft = await this.find(inbox, id);
    if (!(await this.deps.drafts.softDelete(draft.id, this.deps.clock.now())))
      throw new NotFoundError('Draft not found');
    await this.recordEvent('inbox.draft.deleted', inbox, draft, source, null);
    return draft;
  }

  /** Sends the draft from the inbox (a reply joins its thread with the threading headers set). */
  async send(
    caller: C,
    inbox: Inbox,
    id: string,
    headers: Record<string, string> | null | undefined,
    unit: UnitOfWork,
    source: InboxActor,
  ) {
    const draft = await this.find(inbox, id);
    const thread = draft.threadId ? await this.deps.threads.find(inbox, draft.threadId) : null;
    const parent =
      thread && draft.replyToEmailId ? await this.deps.threads.message(inbox, thread.id, draft.replyToEmailId) : null;
    const to = draft.to ?? (parent ? replyRecipients(parent) : null);
    if (!to || to.length === 0)
      throw new MissingRequiredFieldError('The draft has no recipient: set to first', {
        errors: [{ path: 'to', message: 'is required to send' }],
      });
    if (draft.html === null && draft.text === null)
      throw new MissingRequiredFieldError('The draft has no body: set html or text first', {
        errors: [{ path: 'html', message: 'html or text is required to send' }],
      });
    const attachments = await Promise.all(
      draft.attachments.map(async (file) => {
        const bytes = await this.deps.blobs.get(BLOBS, file.blob);
        // Files are kept on the disk of the node that received them: never send an empty one.
        if (!bytes)
          throw new ServiceUnavailableError(
            `The draft's file ${file.filename} cannot be read on this node now; nothing was sent, retry later`,
          );
        return { filename: file.filename, content_type: file.content_type, content: bytes.toString('base64') };
      }),
    );
    const subject = draft.subject ?? (parent ? prefixedSubject('Re', parent.subject) : '');
    return this.deps.sending.send(
      caller,
      inbox,
      thread,
      {
        from: inboxFrom(inbox),
        to,
        ...(draft.cc.length > 0 ? { cc: draft.cc } : {}),
        ...(draft.bcc.length > 0 ? { bcc: draft.bcc } : {}),
        reply_to: [inbox.emailAddress],
        subject,
        ...(draft.html !== null ? { html: draft.html } : {}),
        ...(draft.text !== null ? { text: draft.text } : {}),
        ...(attachments.length > 0 ? { attachments } : {}),
        headers: { ...(headers ?? {}), ...(parent ? threadingHeaders(parent) : {}) },
      },
      unit,
      {
        source,
        extra: { draft_id: draft.id, draft: eventDraft(draft) },
        then: async (trx, filed, sentId) => {
          const at = this.deps.clock.now();
          if (!(await this.deps.drafts.markSent(trx, draft.id, sentId, at))) throw new NotFoundError('Draft not found');
          await this.deps.events.record(
            inbox.teamId,
            'inbox.draft.sent',
            {
              source,
              inbox_id: inbox.id,
              thread_id: filed.id,
              thread: publicThreadSummary(filed, []),
              email_id: sentId,
              draft_id: draft.id,
              draft: eventDraft({ ...draft, emailId: sentId, threadId: filed.id }),
            },
            trx,
          );
        },
      },
    );
  }

  /** Reads, checks and stores a draft's files (every given file replaces the ones before). */
  private async storeFiles(draftId: string, files: DraftAttachmentInput[]): Promise<DraftFile[]> {
    // Read (base64) or fetched exactly as a send's attachments are; then the draft's own rules.
    const loaded = (await loadAttachments(files, this.deps.fetchAttachment)).map((file, i) => {
      assertSendableFile({ filename: files[i]!.filename, size: file.content.length }, `attachments.${i}`);
      return {
        filename: files[i]!.filename,
        contentType: file.contentType ?? 'application/octet-stream',
        bytes: file.content,
      };
    });
    const total = loaded.reduce((sum, file) => sum + file.bytes.length, 0);
    if (total > DRAFT_MAX_BYTES)
      throw new InvalidAttachmentError('The files on a draft may total at most 25 MB', {
        errors: [{ path: 'attachments', message: `${total} bytes is more than 25 MB` }],
      });
    const stored: DraftFile[] = [];
    for (const file of loaded) {
      const id = newId();
      const blob = `${draftId}-${id}`;
      await this.deps.blobs.put(BLOBS, blob, file.bytes);
      stored.push({ id, filename: file.filename, content_type: file.contentType, size: file.bytes.length, blob });
    }
    return stored;
  }

  private async recordEvent(
    type: 'inbox.draft.created' | 'inbox.draft.updated' | 'inbox.draft.deleted',
    inbox: Inbox,
    draft: InboxDraft,
    source: InboxActor,
    thread: InboxThread | null,
  ): Promise<void> {
    const threadRow =
      thread ?? (draft.threadId ? await this.deps.threads.find(inbox, draft.threadId).catch(() => null) : null);
    await this.deps.events.record(inbox.teamId, type, {
      source,
      inbox_id: inbox.id,
      ...(draft.threadId ? { thread_id: draft.threadId } : {}),
      ...(threadRow ? { thread: publicThreadSummary(threadRow, await this.deps.threads.labelsOf(threadRow.id)) } : {}),
      draft_id: draft.id,
      draft: eventDraft(draft),
    });
  }
}
