import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { isUniqueViolation } from '../../../db/errors.js';
import { InvalidParameterError, NotFoundError, UnprocessableValidationError } from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import type { ContactService } from '../contacts/contact.service.js';
import type { ContactPropertyService } from '../properties/contact-property.service.js';
import type { TopicService } from '../topics/topic.service.js';
import {
  applySegmentFilter,
  validateSegmentFilter,
  type FilterProperty,
  type FilterTopic,
  type SegmentFilter,
} from './segment-filter.js';
import { propertyKeysOf } from './filter-properties.js';
import { SegmentRepository } from './segment.repository.js';
import type { CreateSegmentInput, UpdateSegmentInput } from './segment.schemas.js';
import type { Segment, SegmentMetrics } from './segment.types.js';

type FilterContext = { properties: Map<string, FilterProperty>; topics: Map<string, FilterTopic> };

const nameTaken = (name: string) =>
  new InvalidParameterError(`A segment named "${name}" already exists`, {
    errors: [{ path: 'name', message: 'already used by a live segment' }],
  });

/**
 * Segments: a name and an immutable filter. Membership is "matches the filter OR was added by
 * hand", evaluated by one SQL query at read time (and at send time), never stored; erased
 * contacts are gone from both sides of that OR.
 */
export class SegmentService {
  private readonly repository: SegmentRepository;

  constructor(
    private readonly deps: {
      knex: Knex;
      clock: Clock;
      properties: ContactPropertyService;
      topics: TopicService;
      contacts: ContactService;
    },
  ) {
    this.repository = new SegmentRepository(deps.knex);
  }

  async create(teamId: string, input: CreateSegmentInput): Promise<Segment> {
    const filter =
      input.filter === undefined || input.filter === null ? null : await this.validate(teamId, input.filter);
    if (await this.repository.nameTaken(teamId, input.name)) throw nameTaken(input.name);
    const segment: Segment = { id: newId(), teamId, name: input.name, filter, createdAt: this.deps.clock.now() };
    try {
      await this.repository.insert(segment);
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken(input.name);
      throw err;
    }
    return segment;
  }

  async get(teamId: string, id: string): Promise<Segment> {
    const segment = isUuid(id) ? await this.repository.findById(teamId, id.toLowerCase()) : undefined;
    if (!segment) throw new NotFoundError('Segment not found');
    return segment;
  }

  async rename(teamId: string, id: string, input: UpdateSegmentInput): Promise<Segment> {
    const segment = await this.get(teamId, id);
    if (input.filter !== undefined)
      throw new InvalidParameterError('A segment’s filter never changes: create a new segment instead', {
        errors: [{ path: 'filter', message: 'cannot change after creation' }],
      });
    if (await this.repository.nameTaken(teamId, input.name, segment.id)) throw nameTaken(input.name);
    await this.repository.rename(segment.id, input.name);
    return { ...segment, name: input.name };
  }

  async remove(teamId: string, id: string): Promise<Segment> {
    const segment = await this.get(teamId, id);
    await this.repository.softDelete(segment.id, this.deps.clock.now());
    return segment;
  }

  list(teamId: string, page: PageQuery) {
    return this.repository.list(teamId, page);
  }

  /** The segment's members, newest first: the set a broadcast resolves before its own exclusions. */
  async contacts(teamId: string, id: string, page: PageQuery) {
    const segment = await this.get(teamId, id);
    const narrow = await this.membership(segment);
    return this.deps.contacts.list(teamId, page, narrow);
  }

  async metrics(teamId: string, id: string): Promise<SegmentMetrics> {
    const segment = await this.get(teamId, id);
    // Without members added by hand (the usual case) the count is the filter's alone: its
    // conditions then stay top-level ANDs, which MariaDB turns into semi-joins (not under an OR).
    if (segment.filter && !(await this.hasMembers(segment))) {
      const context = await this.compileContext(teamId);
      return this.count(teamId, (query) => applySegmentFilter(query, segment.filter!, context, 'contacts'));
    }
    return this.count(teamId, await this.membership(segment));
  }

  private async hasMembers(segment: Segment): Promise<boolean> {
    return Boolean(await this.deps.knex('segment_members').where({ segment_id: segment.id }).first('contact_id'));
  }

  /** How many contacts a filter would select now (explicit members aside). */
  async preview(teamId: string, input: unknown): Promise<SegmentMetrics> {
    if (input === null || input === undefined)
      throw new InvalidParameterError('filter is required', { errors: [{ path: 'filter', message: 'required' }] });
    const filter = await this.validate(teamId, input);
    const context = await this.compileContext(teamId);
    return this.count(teamId, (query) => applySegmentFilter(query, filter, context, 'contacts'));
  }

  /** Live segments the contact belongs to (by hand or by filter), newest first. */
  async segmentsOf(teamId: string, idOrEmail: string): Promise<Segment[]> {
    const contact = await this.deps.contacts.find(teamId, idOrEmail);
    const found: Segment[] = [];
    for (const segment of await this.repository.all(teamId)) {
      const narrow = await this.membership(segment);
      const query = this.deps.knex('contacts').where({ team_id: teamId, id: contact.id });
      narrow(query);
      if (await query.first('id')) found.push(segment);
    }
    return found;
  }

  /** Names of live segments whose filter reads the property (what blocks its deletion). */
  async usingProperty(teamId: string, key: string): Promise<string[]> {
    const wanted = key.toLowerCase();
    return (await this.repository.all(teamId))
      .filter((s) => s.filter !== null && propertyKeysOf(s.filter).some((k) => k.toLowerCase() === wanted))
      .map((s) => `segment "${s.name}" (${s.id})`);
  }

  /** A segment for a broadcast already sending: deleted ones too (undefined when it never existed). */
  findForSending(teamId: string, id: string): Promise<Segment | undefined> {
    return this.repository.findAnyState(teamId, id);
  }

  /** Whether `id` names a live segment of the team (the broadcast gate asks). */
  async isLive(teamId: string, id: string): Promise<boolean> {
    return isUuid(id) && Boolean(await this.repository.findById(teamId, id.toLowerCase()));
  }

  /** Adds "is a member of `segment`" to a query over `contacts`. */
  async membership(segment: Segment): Promise<(query: Knex.QueryBuilder) => void> {
    const context = segment.filter ? await this.compileContext(segment.teamId) : undefined;
    const knex = this.deps.knex;
    return (query) =>
      query.where((member) => {
        if (segment.filter && context)
          member.where((matches) => applySegmentFilter(matches, segment.filter!, context, 'contacts'));
        // Uncorrelated, as the filter's conditions: the segment's members are read once.
        member.orWhereIn(
          'contacts.id',
          knex('segment_members as sm').select('sm.contact_id').where('sm.segment_id', segment.id),
        );
      });
  }

  private async count(teamId: string, narrow: (query: Knex.QueryBuilder) => void): Promise<SegmentMetrics> {
    const query = this.deps.knex('contacts').where({ team_id: teamId });
    narrow(query);
    const row = (await query
      .select(this.deps.knex.raw('COUNT(*) AS contacts'), this.deps.knex.raw('SUM(unsubscribed) AS unsubscribed'))
      .first()) as { contacts: unknown; unsubscribed: unknown };
    const contacts = Number(row.contacts);
    const unsubscribed = Number(row.unsubscribed ?? 0);
    return { contacts, subscribed: contacts - unsubscribed, unsubscribed };
  }

  /** Validation sees live topics and declared properties; a refusal lists every bad condition. */
  private async validate(teamId: string, input: unknown): Promise<SegmentFilter> {
    const [properties, topics] = await Promise.all([this.deps.properties.byKey(teamId), this.deps.topics.all(teamId)]);
    const result = validateSegmentFilter(input, {
      properties: new Map([...properties].map(([key, p]) => [key, { id: p.id, key: p.key, type: p.type }])),
      topics: new Map(topics.map((t) => [t.id, { id: t.id, defaultSubscription: t.defaultSubscription }])),
    });
    if (!result.ok)
      throw new UnprocessableValidationError('The segment filter is not valid', {
        errors: result.errors.map((e) => ({
          path: e.path.startsWith('filter') ? e.path : `filter.${e.path}`,
          message: e.message,
        })),
      });
    return result.filter;
  }

  /** Compilation also knows deleted topics: a filter keeps naming what it named. */
  private async compileContext(teamId: string): Promise<FilterContext> {
    const [properties, topics] = await Promise.all([
      this.deps.properties.byKey(teamId),
      this.deps.topics.defaultsOf(teamId),
    ]);
    return {
      properties: new Map([...properties].map(([key, p]) => [key, { id: p.id, key: p.key, type: p.type }])),
      topics: new Map(topics.map((t) => [t.id, t])),
    };
  }
}
