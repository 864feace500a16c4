import type { Knex } from 'knex';
import type { UnitsOfWork } from '../../db/unit-of-work.js';
import type { FileBlobStore } from '../../lib/blob-store.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { SafeFetchResult } from '../../lib/net/safe-fetch.js';
import type { AiAccess } from '../ai/ai-access.js';
import type { AiProvider } from '../ai/ai.types.js';
import type { EventLog } from '../events/log/event-log.js';
import type { Team } from '../platform/teams/team.types.js';
import { AgentSteps } from './agent/agent-steps.js';
import { InboxAgent } from './agent/inbox-agent.js';
import { InboxConversations } from './inbox-conversations.js';
import { InboxDraftRepository } from './inbox-draft.repository.js';
import { InboxDraftService } from './inbox-draft.service.js';
import { InboxLabelRepository } from './inbox-label.repository.js';
import { InboxRetention } from './inbox-retention.js';
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
  logger: Logger;
  /** What the inbox agent needs beyond this group: the AI group's model and credits, the team, a sender. */
  agent: {
    /** The AI group's model and its checks and credits; asked for per run, so the AI group may be built after this one. */
    ai: () => { provider: AiProvider; access: AiAccess };
    team: (teamId: string) => Promise<Team>;
    units: UnitsOfWork;
    /** The team as a sender with no API key (what a forward by the agent is accepted as). */
    systemCaller: (team: Team) => C;
  };
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
  const inboxAgent = createInboxAgent(infra, { inboxThreads, inboxLabels, inboxDrafts, inboxSending });
  inboxConversations.onNewThread(inboxAgent.read);
  const inboxRetention = new InboxRetention({ knex, clock, blobs: infra.blobs });
  return {
    inboxes,
    inboxLabels,
    inboxThreads,
    inboxConversations,
    inboxSending,
    inboxDrafts,
    inboxAgent,
    inboxRetention,
  };
}

/** The agent, on the AI group's checks and credits (the same rules as the AI helpers: ai-access.ts). */
function createInboxAgent<C>(
  infra: InboxesInfrastructure<C>,
  group: {
    inboxThreads: InboxThreadService;
    inboxLabels: InboxLabelService;
    inboxDrafts: InboxDraftService<C>;
    inboxSending: InboxSending<C>;
  },
): InboxAgent<C> {
  const { agent } = infra;
  return new InboxAgent<C>({
    knex: infra.knex,
    units: agent.units,
    ai: agent.ai,
    team: agent.team,
    threads: group.inboxThreads,
    labels: group.inboxLabels,
    steps: new AgentSteps<C>({
      threads: group.inboxThreads,
      drafts: group.inboxDrafts,
      sending: group.inboxSending,
      units: agent.units,
      systemCaller: agent.systemCaller,
    }),
    warn: (details, message) => infra.logger.warn(details, message),
  });
}
