import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import {
  InvalidParameterError,
  NotFoundError,
  ResourceLockedError,
  UnprocessableValidationError,
} from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import type { Team } from '../../platform/teams/team.types.js';
import { scheduledAtWithinLimits } from '../../shared/scheduling/schedule-phrase.js';
import type { TemplateService } from '../../sending/templates/template.service.js';
import type { BroadcastGate, GateCheck } from './broadcast-gate.js';
import { BroadcastResultsRepository } from './broadcast-results.repository.js';
import { BroadcastRepository, type BroadcastListFilter } from './broadcast.repository.js';
import type { CreateBroadcastInput, RecipientsQuery, UpdateBroadcastInput } from './broadcast.schemas.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import type { Broadcast } from './broadcast.types.js';
import { mergeProblems } from './merge-variables.js';

export type BroadcastDeps = {
  knex: Knex;
  clock: Clock;
  gate: BroadcastGate;
  templates: TemplateService;
  /** Whether the segment / topic is a live one of the team. */
  liveSegment: (teamId: string, id: string) => Promise<boolean>;
  liveTopic: (teamId: string, id: string) => Promise<boolean>;
  /** Refuses (429 marketing_quota_exceeded) a send the marketing allowance cannot carry. */
  assertAllowance: (team: Team, broadcast: Broadcast) => Promise<void>;
};

const locked = (b: Broadcast, what: string) =>
  new ResourceLockedError(`Only a draft can be ${what}; this broadcast is ${b.status}`);

/** 422 validation_error for placeholders that do not parse, before anything is written. */
function assertMergeVariables(input: Partial<CreateBroadcastInput>): void {
  const errors = mergeProblems({ subject: input.subject, html: input.html, text: input.text });
  if (errors.length > 0)
    throw new UnprocessableValidationError(`${errors[0]!.path}: ${errors[0]!.message}`, { errors });
}

/**
 * Broadcasts and their states (spec: States and transitions). A draft is changed freely; send
 * passes the gate and the marketing allowance, then becomes queued (or scheduled); the fan-out
 * (scheduler) moves it to sending and sent. Cancel works until it is sent; while sending it
 * stops at the next page of recipients.
 */
export class BroadcastService {
  private readonly repository: BroadcastRepository;

  constructor(private readonly deps: BroadcastDeps) {
    this.repository = new BroadcastRepository(deps.knex);
  }

  async create(team: Team, input: CreateBroadcastInput): Promise<Broadcast> {
    if (input.scheduled_at !== undefined && input.send !== true)
      throw new InvalidParameterError('scheduled_at needs send: true', {
        errors: [{ path: 'scheduled_at', message: 'only with send: true' }],
      });
    assertMergeVariables(input);
    const now = this.deps.clock.now();
    const draft: Broadcast = {
      id: newId(),
      teamId: team.id,
      name: input.name ?? null,
      segmentId: null,
      topicId: null,
      from: input.from,
      subject: input.subject,
      replyTo: [],
      previewText: null,
      html: null,
      text: null,
      status: 'draft',
      scheduledAt: null,
      sentAt: null,
      cursor: null,
      failureReason: null,
      createdAt: now,
      updatedAt: now,
    };
    const broadcast = await this.applyContent(team, draft, input);
    if (input.send === true) Object.assign(broadcast, await this.sendable(team, broadcast, input.scheduled_at));
    await this.repository.insert(broadcast);
    return broadcast;
  }

  async get(teamId: string, id: string): Promise<Broadcast> {
    const found = isUuid(id) ? await this.repository.findById(teamId, id.toLowerCase()) : undefined;
    if (!found) throw new NotFoundError('Broadcast not found');
    return found;
  }

  list(teamId: string, filter: BroadcastListFilter) {
    return this.repository.list(teamId, filter);
  }

  /** The broadcast's recipients to whom `query.type` happened (a draft has none). */
  async recipients(teamId: string, id: string, query: RecipientsQuery) {
    const broadcast = await this.get(teamId, id);
    return new BroadcastResultsRepository(this.deps.knex).recipients(broadcast.id, query);
  }

  /** The links clicked in the broadcast's emails, with total and unique clicks. */
  async clickedLinks(teamId: string, id: string, page: PageQuery) {
    const broadcast = await this.get(teamId, id);
    return new BroadcastResultsRepository(this.deps.knex).links(broadcast.id, page);
  }

  async update(team: Team, id: string, input: UpdateBroadcastInput): Promise<Broadcast> {
    const broadcast = await this.get(team.id, id);
    if (broadcast.status !== 'draft') throw locked(broadcast, 'updated');
    assertMergeVariables(input);
    const updated = await this.applyContent(team, { ...broadcast, updatedAt: this.deps.clock.now() }, input);
    if (input.name !== undefined) updated.name = input.name;
    if (input.from !== undefined) updated.from = input.from;
    if (input.subject !== undefined) updated.subject = input.subject;
    await this.repository.save(updated);
    return updated;
  }

  async remove(teamId: string, id: string): Promise<Broadcast> {
    const broadcast = await this.get(teamId, id);
    if (broadcast.status !== 'draft') throw locked(broadcast, 'deleted');
    await this.repository.softDelete(broadcast.id, this.deps.clock.now());
    return broadcast;
  }

  async send(team: Team, id: string, scheduledAt: string | undefined): Promise<Broadcast> {
    const broadcast = await this.get(team.id, id);
    if (broadcast.status !== 'draft') throw locked(broadcast, 'sent');
    const changes = await this.sendable(team, broadcast, scheduledAt);
    const moved = await this.repository.transition(broadcast.id, ['draft'], {
      status: changes.status,
      scheduled_at: changes.scheduledAt,
      updated_at: this.deps.clock.now(),
    });
    if (!moved) throw locked(await this.get(team.id, id), 'sent');
    return { ...broadcast, ...changes };
  }

  async cancel(teamId: string, id: string): Promise<Broadcast> {
    const broadcast = await this.get(teamId, id);
    const cancelable = ['scheduled', 'queued', 'sending'] as const;
    if (!(cancelable as readonly string[]).includes(broadcast.status))
      throw new ResourceLockedError(`A ${broadcast.status} broadcast cannot be canceled`);
    const moved = await this.repository.transition(broadcast.id, [...cancelable], {
      status: 'canceled',
      updated_at: this.deps.clock.now(),
    });
    if (!moved) return this.cancel(teamId, id);
    return { ...broadcast, status: 'canceled' };
  }

  /** A new draft with the same content (any state can be duplicated). */
  async duplicate(teamId: string, id: string): Promise<Broadcast> {
    const original = await this.get(teamId, id);
    const now = this.deps.clock.now();
    const copy: Broadcast = {
      ...original,
      id: newId(),
      name: original.name === null ? null : `${original.name} (copy)`.slice(0, 200),
      status: 'draft',
      scheduledAt: null,
      sentAt: null,
      cursor: null,
      failureReason: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.repository.insert(copy);
    return copy;
  }

  async checklist(team: Team, id: string): Promise<{ broadcast: Broadcast; checks: GateCheck[] }> {
    const broadcast = await this.get(team.id, id);
    return { broadcast, checks: await this.deps.gate.checklist(team, broadcast) };
  }

  /** The gate and the allowance, then the state a send moves to. */
  private async sendable(team: Team, broadcast: Broadcast, scheduledAt: string | undefined) {
    await this.deps.gate.assertPasses(team, broadcast);
    await this.deps.assertAllowance(team, broadcast);
    const at = scheduledAtWithinLimits(scheduledAt, this.deps.clock.now());
    return { status: at ? ('scheduled' as const) : ('queued' as const), scheduledAt: at };
  }

  /** Segment, topic, reply-to, preview, bodies or a published template's content. */
  private async applyContent(
    team: Team,
    broadcast: Broadcast,
    input: Partial<CreateBroadcastInput>,
  ): Promise<Broadcast> {
    const next = { ...broadcast };
    const segmentId = input.segment_id ?? input.audience_id;
    if (input.segment_id && input.audience_id && input.segment_id !== input.audience_id)
      throw new InvalidParameterError('segment_id and audience_id name different segments', {
        errors: [{ path: 'audience_id', message: 'a deprecated alias of segment_id: send one' }],
      });
    if (segmentId !== undefined) {
      if (!(await this.deps.liveSegment(team.id, segmentId)))
        throw new InvalidParameterError('Unknown segment', {
          errors: [{ path: 'segment_id', message: 'no such segment' }],
        });
      next.segmentId = segmentId;
    }
    if (input.topic_id !== undefined) {
      if (input.topic_id !== null && !(await this.deps.liveTopic(team.id, input.topic_id)))
        throw new InvalidParameterError('Unknown topic', { errors: [{ path: 'topic_id', message: 'no such topic' }] });
      next.topicId = input.topic_id;
    }
    if (input.reply_to !== undefined)
      next.replyTo = input.reply_to === null ? [] : Array.isArray(input.reply_to) ? input.reply_to : [input.reply_to];
    if (input.preview_text !== undefined) next.previewText = input.preview_text;
    if (input.template) {
      if (input.html !== undefined || input.text !== undefined)
        throw new InvalidParameterError('template cannot be combined with html or text', {
          errors: [{ path: 'template', message: 'send html/text or a template, not both' }],
        });
      // The published version's content as written: its placeholders ({{KEY}} or {{{KEY}}}) are
      // the merge variables.
      const { version } = await this.deps.templates.publishedVersion(team.id, input.template.id);
      next.html = version.html;
      next.text = version.text;
      next.subject = input.subject ?? version.subject ?? next.subject;
    } else {
      if (input.html !== undefined) next.html = input.html;
      if (input.text !== undefined) next.text = input.text;
    }
    return next;
  }
}
