import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { isUniqueViolation } from '../../../db/errors.js';
import { InvalidParameterError, NotFoundError } from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import { TopicRepository } from './topic.repository.js';
import type { CreateTopicInput, UpdateTopicInput } from './topic.schemas.js';
import type { Topic } from './topic.types.js';

const nameTaken = (name: string) =>
  new InvalidParameterError(`A topic named "${name}" already exists`, {
    errors: [{ path: 'name', message: 'already used by a live topic' }],
  });

/**
 * Subscription topics: a name unique among live topics, a default subscription fixed at
 * creation, and a visibility (public topics are listed on every contact's preference page).
 * Deleting is soft: emails and consent records keep naming the topic.
 */
export class TopicService {
  private readonly repository: TopicRepository;

  constructor(private readonly deps: { knex: Knex; clock: Clock }) {
    this.repository = new TopicRepository(deps.knex);
  }

  async create(teamId: string, input: CreateTopicInput): Promise<Topic> {
    if (await this.repository.nameTaken(teamId, input.name)) throw nameTaken(input.name);
    const topic: Topic = {
      id: newId(),
      teamId,
      name: input.name,
      description: input.description ?? null,
      defaultSubscription: input.default_subscription,
      visibility: input.visibility ?? 'private',
      createdAt: this.deps.clock.now(),
    };
    try {
      await this.repository.insert(topic);
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken(input.name);
      throw err;
    }
    return topic;
  }

  async get(teamId: string, id: string): Promise<Topic> {
    const topic = isUuid(id) ? await this.repository.findById(teamId, id.toLowerCase()) : undefined;
    if (!topic) throw new NotFoundError('Topic not found');
    return topic;
  }

  async update(teamId: string, id: string, input: UpdateTopicInput): Promise<Topic> {
    const topic = await this.get(teamId, id);
    if (input.default_subscription !== undefined)
      throw new InvalidParameterError('default_subscription is fixed at creation', {
        errors: [{ path: 'default_subscription', message: 'cannot change' }],
      });
    if (input.id !== undefined && input.id.toLowerCase() !== topic.id)
      throw new InvalidParameterError('The body names another topic than the path', {
        errors: [{ path: 'id', message: 'must match the topic in the path' }],
      });
    if (input.name !== undefined && (await this.repository.nameTaken(teamId, input.name, topic.id)))
      throw nameTaken(input.name);
    const changes = { name: input.name, description: input.description, visibility: input.visibility };
    try {
      await this.repository.update(topic.id, changes);
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken(input.name!);
      throw err;
    }
    return {
      ...topic,
      ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)),
    };
  }

  async remove(teamId: string, id: string): Promise<Topic> {
    const topic = await this.get(teamId, id);
    await this.repository.softDelete(topic.id, this.deps.clock.now());
    return topic;
  }

  list(teamId: string, page: PageQuery) {
    return this.repository.list(teamId, page);
  }

  all(teamId: string, within: Knex = this.deps.knex): Promise<Topic[]> {
    return new TopicRepository(within).all(teamId);
  }

  /** Every topic's default subscription, deleted topics included. */
  defaultsOf(teamId: string, within: Knex = this.deps.knex) {
    return new TopicRepository(within).defaultsOf(teamId);
  }

  /** The live topics among `ids`, or a 422 naming each unknown one (`path` prefixes the index). */
  async requireAll(teamId: string, ids: string[], path: string, within: Knex = this.deps.knex): Promise<Topic[]> {
    const wanted = ids.map((id) => id.toLowerCase());
    const found = await new TopicRepository(within).findByIds(teamId, wanted.filter(isUuid));
    const known = new Set(found.map((t) => t.id));
    const missing = wanted.flatMap((id, index) => (known.has(id) ? [] : [{ path: `${path}[${index}].id`, id }]));
    if (missing.length > 0)
      throw new InvalidParameterError(`Unknown topic: ${missing.map((m) => m.id).join(', ')}`, {
        errors: missing.map((m) => ({ path: m.path, message: 'no such topic' })),
      });
    return found;
  }
}
