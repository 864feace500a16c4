import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import { MissingRequiredFieldError, NotFoundError, UnprocessableValidationError } from '../../lib/errors.js';
import { isUuid, newId } from '../../lib/ids.js';
import type { PageQuery } from '../shared/pagination/list-query.js';
import type { EventLog } from '../events/log/event-log.js';
import type { InboxLabelRepository } from './inbox-label.repository.js';
import type { InboxLabelService } from './inbox-label.service.js';
import type { InboxThreadRepository, StoredMessage, ThreadFilter } from './inbox-thread.repository.js';
import { publicMessage, publicThread, publicThreadSummary, threadLabel } from './inbox.shape.js';
import type { Inbox, InboxActor, InboxLabel, InboxThread, MoveFolder } from './inbox.types.js';

/** An email's bodies, and (for a sent one) its attachments as the sending group lists them. */
export type MessageBodies = {
  html: string | null;
  text: string | null;
  attachments?: Array<{ id: string; filename: string | null; size: number | null }>;
};

export type ThreadChanges = { read?: boolean; folder?: MoveFolder; assignee_email?: string | null };

export type InboxMembers = {
  /** The team member with this address (case-insensitive), if any. */
  byEmail: (teamId: string, email: string) => Promise<{ userId: string | null; email: string } | undefined>;
  /** The address of a signed-in member (who assigned). */
  emailOf: (teamId: string, userId: string) => Promise<string | undefined>;
};

/** At most this many labels per add or set (the SDK: between 1 and 10 label ids). */
export const MAX_LABELS_PER_CALL = 10;

/**
 * Threads of an inbox: lists and search, a thread's emails with their bodies (read from the
 * received or sent email they refer to), folders, read state, assignment and labels. Every
 * change is recorded as its inbox.* event in the change's own transaction.
 */
export class InboxThreadService {
  constructor(
    private readonly deps: {
      knex: Knex;
      clock: Clock;
      events: EventLog;
      threads: InboxThreadRepository;
      labelRows: InboxLabelRepository;
      labels: InboxLabelService;
      members: InboxMembers;
      bodies: {
        inbound: (teamId: string, id: string) => Promise<MessageBodies>;
        outbound: (teamId: string, id: string) => Promise<MessageBodies>;
      };
    },
  ) {}

  async find(inbox: Inbox, id: string, db: Knex = this.deps.knex): Promise<InboxThread> {
    const thread = isUuid(id) ? await this.deps.threads.findThread(inbox.id, id.toLowerCase(), db) : undefined;
    if (!thread) throw new NotFoundError('Thread not found');
    return thread;
  }

  async list(inbox: Inbox, filter: ThreadFilter, page: PageQuery, search = false) {
    const { threads, hasMore } = await this.deps.threads.list(inbox.id, filter, page);
    const ids = threads.map((thread) => thread.id);
    const [labels, latest, drafts, matched] = await Promise.all([
      this.deps.labelRows.ofThreads(this.deps.knex, ids),
      this.deps.threads.latestMessages(ids),
      this.deps.threads.withDrafts(ids),
      search ? this.deps.threads.matchedEmails(ids, filter) : Promise.resolve(new Map<string, string>()),
    ]);
    const data = threads.map((thread) => {
      const item = publicThread(thread, labels.get(thread.id) ?? [], latest.get(thread.id), drafts.has(thread.id));
      return search ? { ...item, matched_email_id: matched.get(thread.id) ?? null } : item;
    });
    return { data, hasMore };
  }

  async summary(inbox: Inbox, id: string) {
    const thread = await this.find(inbox, id);
    return publicThreadSummary(thread, await this.labelsOf(thread.id));
  }

  /** Every action recorded on the thread (the agent's, with its reasons), oldest first. */
  async actions(inbox: Inbox, id: string) {
    const thread = await this.find(inbox, id);
    return this.deps.threads.actions(thread.id);
  }

  async update(inbox: Inbox, id: string, changes: ThreadChanges, actor: { source: InboxActor; userId?: string }) {
    if (changes.read === undefined && changes.folder === undefined && changes.assignee_email === undefined)
      throw new MissingRequiredFieldError('Send at least one of read and folder', {
        errors: [{ path: '', message: 'at least one field is required' }],
      });
    const assignee =
      changes.assignee_email === undefined || changes.assignee_email === null
        ? null
        : await this.deps.members.byEmail(inbox.teamId, changes.assignee_email);
    if (changes.assignee_email && !assignee)
      throw new UnprocessableValidationError(`${changes.assignee_email} is not a member of this team`, {
        errors: [{ path: 'assignee_email', message: 'must be the address of a team member' }],
      });
    const assignedBy = actor.userId ? ((await this.deps.members.emailOf(inbox.teamId, actor.userId)) ?? null) : null;
    await this.deps.knex.transaction(async (trx) => {
      const thread = await this.find(inbox, id, trx);
      const now = this.deps.clock.now();
      const row: Record<string, unknown> = { updated_at: now };
      if (changes.read !== undefined) row.read = changes.read;
      if (changes.folder !== undefined) row.folder = changes.folder;
      if (changes.assignee_email !== undefined) {
        row.assignee_user_id = assignee?.userId ?? null;
        row.assignee_email = assignee?.email ?? null;
      }
      await this.deps.threads.updateThread(trx, thread.id, row);
      if (changes.read !== undefined) await this.deps.threads.markMessagesRead(trx, thread.id, changes.read);
      const after = (await this.deps.threads.findThread(inbox.id, thread.id, trx))!;
      const summary = publicThreadSummary(after, await this.labelsOf(thread.id, trx));
      const base = { source: actor.source, inbox_id: inbox.id, thread_id: thread.id, thread: summary };
      if (changes.folder !== undefined && changes.folder !== thread.folder)
        await this.deps.events.record(
          inbox.teamId,
          'inbox.thread.folder.updated',
          { ...base, from: thread.folder, to: changes.folder },
          trx,
        );
      if (changes.assignee_email !== undefined && (assignee?.email ?? null) !== thread.assigneeEmail) {
        if (assignee)
          await this.deps.events.record(
            inbox.teamId,
            'inbox.thread.assigned',
            {
              ...base,
              assignee_email: assignee.email,
              assigned_by_email: assignedBy,
              previous_assignee_email: thread.assigneeEmail,
            },
            trx,
          );
        else
          await this.deps.events.record(
            inbox.teamId,
            'inbox.thread.unassigned',
            { ...base, previous_assignee_email: thread.assigneeEmail },
            trx,
          );
      }
    });
    return this.summary(inbox, id);
  }

  async remove(inbox: Inbox, id: string): Promise<InboxThread> {
    const thread = await this.find(inbox, id);
    if (!(await this.deps.threads.deleteThread(thread.id, this.deps.clock.now())))
      throw new NotFoundError('Thread not found');
    return thread;
  }

  /** Adds labels (existing ones of the inbox), keeps the others; `set` replaces them all. */
  async changeLabels(
    inbox: Inbox,
    id: string,
    change: { add?: string[]; set?: string[]; remove?: string },
    source: InboxActor,
  ) {
    const wanted = change.add ?? change.set;
    if (wanted && wanted.length > MAX_LABELS_PER_CALL)
      throw new UnprocessableValidationError(`Send at most ${MAX_LABELS_PER_CALL} label ids`, {
        errors: [{ path: 'labels', message: `at most ${MAX_LABELS_PER_CALL} label ids` }],
      });
    const labels = wanted ? await this.deps.labels.existing(inbox, wanted) : [];
    if (change.remove !== undefined) await this.deps.labels.find(inbox, change.remove);
    return this.deps.knex.transaction(async (trx) => {
      const thread = await this.find(inbox, id, trx);
      const before = await this.labelsOf(thread.id, trx);
      const has = (list: InboxLabel[], label: { id: string }) => list.some((one) => one.id === label.id);
      if (change.add)
        await this.deps.labelRows.attach(
          trx,
          thread.id,
          labels.map((l) => l.id),
          this.deps.clock.now(),
        );
      if (change.set) {
        await this.deps.labelRows.detach(
          trx,
          thread.id,
          before.filter((l) => !has(labels, l)).map((l) => l.id),
        );
        await this.deps.labelRows.attach(
          trx,
          thread.id,
          labels.map((l) => l.id),
          this.deps.clock.now(),
        );
      }
      if (change.remove !== undefined) await this.deps.labelRows.detach(trx, thread.id, [change.remove.toLowerCase()]);
      const after = await this.labelsOf(thread.id, trx);
      const added = after.filter((l) => !has(before, l));
      const removed = before.filter((l) => !has(after, l));
      if (added.length + removed.length > 0) {
        await this.deps.threads.updateThread(trx, thread.id, { updated_at: this.deps.clock.now() });
        await this.deps.events.record(
          inbox.teamId,
          'inbox.thread.labels.updated',
          {
            source,
            inbox_id: inbox.id,
            thread_id: thread.id,
            thread: publicThreadSummary(thread, after),
            added: added.map(threadLabel),
            removed: removed.map(threadLabel),
          },
          trx,
        );
      }
      return after;
    });
  }

  async emails(inbox: Inbox, threadId: string, page: PageQuery) {
    const thread = await this.find(inbox, threadId);
    const { messages, hasMore } = await this.deps.threads.messages(thread.id, page);
    const data = await Promise.all(
      messages.map(async (message) => publicMessage(message, await this.bodiesOf(message))),
    );
    return { data, hasMore };
  }

  async message(inbox: Inbox, threadId: string, emailId: string): Promise<StoredMessage> {
    const thread = await this.find(inbox, threadId);
    const message = isUuid(emailId) ? await this.deps.threads.findMessage(thread.id, emailId.toLowerCase()) : undefined;
    if (!message) throw new NotFoundError('Email not found in this thread');
    return message;
  }

  async email(inbox: Inbox, threadId: string, emailId: string) {
    const message = await this.message(inbox, threadId, emailId);
    return publicMessage(message, await this.bodiesOf(message));
  }

  /** An email's bodies; none once the email itself is past its retention (the reference goes at the next purge). */
  async bodiesOf(message: StoredMessage): Promise<MessageBodies> {
    try {
      return message.direction === 'inbound'
        ? await this.deps.bodies.inbound(message.teamId, message.id)
        : await this.deps.bodies.outbound(message.teamId, message.id);
    } catch (err) {
      if (err instanceof NotFoundError) return { html: null, text: null };
      throw err;
    }
  }

  labelsOf(threadId: string, db: Knex = this.deps.knex): Promise<InboxLabel[]> {
    return this.deps.labelRows.ofThreads(db, [threadId]).then((map) => map.get(threadId) ?? []);
  }

  /** Records an action on a thread (who did it, why). */
  async recordAction(
    db: Knex,
    inbox: Inbox,
    threadId: string,
    action: { action: string; source: InboxActor; reason: string | null; detail: Record<string, unknown> | null },
  ): Promise<void> {
    await this.deps.threads.recordAction(db, inbox.teamId, inbox.id, {
      id: newId(),
      threadId,
      createdAt: this.deps.clock.now(),
      ...action,
    });
  }
}
