import type { Knex } from 'knex';
import { receivingName } from '../sending/domains/receiving-name.js';
import type { Clock } from '../../lib/clock.js';
import { MissingRequiredFieldError, NotFoundError, UnprocessableValidationError } from '../../lib/errors.js';
import { isUuid, newId } from '../../lib/ids.js';
import type { PageQuery } from '../shared/pagination/list-query.js';
import type { EventLog } from '../events/log/event-log.js';
import type { Domain } from '../sending/domains/domain.types.js';
import { InboxRepository } from './inbox.repository.js';
import { publicInbox } from './inbox.shape.js';
import type { AgentAction, AgentTone, Inbox, InboxActor, InboxCounts } from './inbox.types.js';

export type CreateInboxInput = { email_address: string; name?: string; from_name?: string; forwarding?: boolean };
export type UpdateInboxInput = { name?: string; from_name?: string };
export type UpdateAgentInput = { instructions?: string | null; tone?: AgentTone | null; actions?: AgentAction[] };

export type InboxDomains = {
  /** The team's domains with this name (the inbox address's host, or its parent for a receiving label). */
  ofTeamNamed: (teamId: string, names: string[]) => Promise<Domain[]>;
  byId: (id: string) => Promise<Domain | undefined>;
};

/** Inboxes: an address on one of the team's receiving domains, its name, sender name and agent settings. */
export class InboxService {
  readonly repository: InboxRepository;

  constructor(private readonly deps: { knex: Knex; clock: Clock; events: EventLog; domains: InboxDomains }) {
    this.repository = new InboxRepository(deps.knex);
  }

  /** An inbox by id or by address (the SDK's InboxSelector), or 404. */
  async resolve(teamId: string, idOrAddress: string): Promise<Inbox> {
    const value = idOrAddress.trim();
    const inbox = isUuid(value)
      ? await this.repository.findById(teamId, value.toLowerCase())
      : value.includes('@')
        ? await this.repository.findByAddress(teamId, value.toLowerCase())
        : undefined;
    if (!inbox) throw new NotFoundError('Inbox not found');
    return inbox;
  }

  async create(teamId: string, input: CreateInboxInput, source: InboxActor): Promise<Inbox> {
    const address = input.email_address.trim().toLowerCase();
    const domain = await this.receivingDomain(teamId, address);
    if (await this.repository.addressTaken(address))
      throw new UnprocessableValidationError(`An inbox for ${address} already exists`, {
        errors: [{ path: 'email_address', message: 'already has an inbox' }],
      });
    const now = this.deps.clock.now();
    const inbox: Inbox = {
      id: newId(),
      teamId,
      domainId: domain.id,
      emailAddress: address,
      name: input.name ?? null,
      fromName: input.from_name ?? null,
      forwarding: input.forwarding ?? false,
      agent: { instructions: null, tone: null, actions: [] },
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.repository.insert(inbox);
    } catch (err) {
      // Two creates of one address at once: the unique live address lets one win.
      if (await this.repository.addressTaken(address))
        throw new UnprocessableValidationError(`An inbox for ${address} already exists`, {
          errors: [{ path: 'email_address', message: 'already has an inbox' }],
        });
      throw err;
    }
    await this.recordInboxEvent('inbox.created', inbox, source);
    return inbox;
  }

  /** The team's domain that receives mail at this address's host (receiving on; the MX may not point here yet). */
  private async receivingDomain(teamId: string, address: string): Promise<Domain> {
    const host = address.slice(address.lastIndexOf('@') + 1);
    const dot = host.indexOf('.');
    const names = dot > 0 ? [host, host.slice(dot + 1)] : [host];
    const domains = await this.deps.domains.ofTeamNamed(teamId, names);
    const receiving = domains.find((domain) => receivingName(domain) === host && domain.receivingEnabled);
    if (receiving) return receiving;
    const known = domains.find((domain) => receivingName(domain) === host);
    throw new UnprocessableValidationError(
      known
        ? `Receiving is off for ${host}: turn it on for the domain (PATCH /domains/${known.id} with receiving) first`
        : `${host} is not a receiving domain of this team: add the domain and turn receiving on first`,
      { errors: [{ path: 'email_address', message: 'must be an address on one of the team’s receiving domains' }] },
    );
  }

  async list(teamId: string, page: PageQuery) {
    const { inboxes, hasMore } = await this.repository.list(teamId, page);
    return { inboxes, counts: await this.repository.counts(inboxes.map((inbox) => inbox.id)), hasMore };
  }

  async counts(inbox: Inbox): Promise<InboxCounts> {
    return (await this.repository.counts([inbox.id])).get(inbox.id)!;
  }

  async update(teamId: string, idOrAddress: string, input: UpdateInboxInput, source: InboxActor): Promise<Inbox> {
    if (input.name === undefined && input.from_name === undefined)
      throw new MissingRequiredFieldError('Send at least one of name and from_name', {
        errors: [{ path: '', message: 'at least one field is required' }],
      });
    const inbox = await this.resolve(teamId, idOrAddress);
    const changes: Record<string, unknown> = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.from_name !== undefined) changes.from_name = input.from_name;
    if (!(await this.repository.update(inbox.id, changes, this.deps.clock.now())))
      throw new NotFoundError('Inbox not found');
    const updated = await this.resolve(teamId, inbox.id);
    await this.recordInboxEvent('inbox.updated', updated, source);
    return updated;
  }

  async remove(teamId: string, idOrAddress: string, source: InboxActor): Promise<Inbox> {
    const inbox = await this.resolve(teamId, idOrAddress);
    if (!(await this.repository.softDelete(inbox.id, this.deps.clock.now())))
      throw new NotFoundError('Inbox not found');
    await this.deps.events.record(teamId, 'inbox.deleted', { source, inbox_id: inbox.id });
    return inbox;
  }

  async updateAgent(teamId: string, idOrAddress: string, input: UpdateAgentInput): Promise<Inbox> {
    if (input.instructions === undefined && input.tone === undefined && input.actions === undefined)
      throw new MissingRequiredFieldError('Send at least one of instructions, tone and actions', {
        errors: [{ path: '', message: 'at least one field is required' }],
      });
    const inbox = await this.resolve(teamId, idOrAddress);
    const changes: Record<string, unknown> = {};
    if (input.instructions !== undefined) changes.agent_instructions = input.instructions;
    if (input.tone !== undefined) changes.agent_tone = input.tone;
    if (input.actions !== undefined) changes.agent_actions = JSON.stringify([...new Set(input.actions)]);
    await this.repository.update(inbox.id, changes, this.deps.clock.now());
    return this.resolve(teamId, inbox.id);
  }

  /** Whether the MX takes mail for the inbox's domain now (receiving on and its MX verified). */
  async receives(inbox: Inbox): Promise<boolean> {
    const domain = await this.deps.domains.byId(inbox.domainId);
    return Boolean(domain?.receivingEnabled && domain.recordStatuses.receiving_mx === 'verified');
  }

  private async recordInboxEvent(type: 'inbox.created' | 'inbox.updated', inbox: Inbox, source: InboxActor) {
    const counts = await this.counts(inbox);
    await this.deps.events.record(inbox.teamId, type, {
      source,
      inbox_id: inbox.id,
      inbox: publicInbox(inbox, counts, await this.receives(inbox)),
    });
  }
}
