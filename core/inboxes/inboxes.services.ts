import type { Knex } from 'knex';
import type { FileBlobStore } from '../../lib/blob-store.js';
import type { Clock } from '../../lib/clock.js';
import type { SafeFetchResult } from '../../lib/net/safe-fetch.js';
import type { EventLog } from '../events/log/event-log.js';
import { InboxConversations } from './inbox-conversations.js';
import { InboxDraftRepository } from './inbox-draft.repository.js';
import { InboxDraftService } from './inbox-draft.service.js';
import { InboxLabelRepository } from './inbox-label.repository.js';
import { InboxLabelService } from './inbox-label.service.js';
import { InboxSending, type InboxSendPort } from './inbox-sending.js';
import { InboxThreadRepository } from './inbox-thread.repository.js';
import { InboxThreadService, type InboxMembers, type MessageBodies } from './inbox-thread.service.js';
import { InboxService, type InboxDomains } from './inbox.service.js';

export type InboxesInfrastructure<C> = {
  knex: Knex;
  clock: Clock;
  blobs: FileBlobStore;
  events: EventLog;
  domains: InboxDomains;
  members: InboxMembers;
  /** Bodies of the emails a thread refers to: the receiving group's (inbound), the sending group's (outbound). */
  bodies: {
    inbound: (teamId: string, id: string) => Promise<MessageBodies>;
    outbound: (teamId: string, id: string) => Promise<MessageBodies>;
  };
  send: InboxSendPort<C>;
  fetchAttachment: (url: string) => Promise<SafeFetchResult>;
};

/**
 * The shared inboxes group (issue 38): inboxes on receiving domains, conversations built from
 * received and sent mail, labels, drafts, and mail sent from an inbox. Received mail reaches it
 * through `inboxConversations.receive`, which the receiving group calls in its intake transaction.
 */
export function createInboxServices<C>(infra: InboxesInfrastructure<C>) {
  const { knex, clock, events } = infra;
  const threadRows = new InboxThreadRepository(knex);
  const labelRows = new InboxLabelRepository(knex);
  const inboxes = new InboxService({ knex, clock, events, domains: infra.domains });
  const inboxLabels = new InboxLabelService({ clock, repository: labelRows });
  const inboxThreads = new InboxThreadService({
    knex,
    clock,
    events,
    threads: threadRows,
    labelRows,
    labels: inboxLabels,
    members: infra.members,
    bodies: infra.bodies,
  });
  const inboxConversations = new InboxConversations({
    inboxes: inboxes.repository,
    threads: threadRows,
    labels: labelRows,
    events,
  });
  const inboxSending = new InboxSending<C>({
    port: infra.send,
    threads: inboxThreads,
    conversations: inboxConversations,
  });
  const inboxDrafts = new InboxDraftService<C>({
    knex,
    clock,
    blobs: infra.blobs,
    events,
    drafts: new InboxDraftRepository(knex),
    threads: inboxThreads,
    sending: inboxSending,
    fetchAttachment: infra.fetchAttachment,
  });
  return { inboxes, inboxLabels, inboxThreads, inboxConversations, inboxSending, inboxDrafts };
}
