import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { isUniqueViolation } from '../../../db/errors.js';
import { InvalidParameterError, NotFoundError, ResourceLockedError } from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import { ContactPropertyRepository } from './contact-property.repository.js';
import type { CreatePropertyInput, UpdatePropertyInput } from './contact-property.schemas.js';
import type { ContactProperty, PropertyType, PropertyValue } from './contact-property.types.js';

/** Who still names a property (segment filters today, automations later): their labels. */
export type PropertyUsage = (teamId: string, key: string) => Promise<string[]>;

function checkFallback(type: PropertyType, value: PropertyValue | null | undefined): void {
  if (value === null || value === undefined) return;
  if (typeof value !== type)
    throw new InvalidParameterError(`fallback_value must be a ${type} for a ${type} property`, {
      errors: [{ path: 'fallback_value', message: `must be a ${type}` }],
    });
}

/**
 * Declared contact properties. A key is declared once per team (case-insensitively) with a type
 * that never changes; only the fallback can be updated. A property still named by a segment
 * filter (or an automation's active version) is not deleted: the answer is 409 resource_locked
 * naming what uses it, because deleting it would silently change who those segments select.
 */
export class ContactPropertyService {
  private readonly repository: ContactPropertyRepository;
  private readonly usages: PropertyUsage[];

  constructor(private readonly deps: { knex: Knex; clock: Clock; usage: PropertyUsage }) {
    this.repository = new ContactPropertyRepository(deps.knex);
    this.usages = [deps.usage];
  }

  /** Another feature that names properties (automations) and must keep them from deletion. */
  alsoUsedBy(usage: PropertyUsage): void {
    this.usages.push(usage);
  }

  async create(teamId: string, input: CreatePropertyInput): Promise<ContactProperty> {
    checkFallback(input.type, input.fallback_value);
    const property: ContactProperty = {
      id: newId(),
      teamId,
      key: input.key,
      type: input.type,
      fallbackValue: input.fallback_value ?? null,
      createdAt: this.deps.clock.now(),
    };
    const taken = () =>
      new InvalidParameterError(`A contact property with the key "${input.key}" already exists`, {
        errors: [{ path: 'key', message: 'already declared' }],
      });
    if (await this.repository.findByKey(teamId, input.key)) throw taken();
    try {
      await this.repository.insert(property);
    } catch (err) {
      if (isUniqueViolation(err)) throw taken();
      throw err;
    }
    return property;
  }

  /** By id, or by key (the key is also how contacts name it). */
  async get(teamId: string, idOrKey: string): Promise<ContactProperty> {
    const found = isUuid(idOrKey)
      ? await this.repository.findById(teamId, idOrKey.toLowerCase())
      : /^[A-Za-z0-9_]{1,50}$/.test(idOrKey)
        ? await this.repository.findByKey(teamId, idOrKey)
        : undefined;
    if (!found) throw new NotFoundError('Contact property not found');
    return found;
  }

  async update(teamId: string, idOrKey: string, input: UpdatePropertyInput): Promise<ContactProperty> {
    const property = await this.get(teamId, idOrKey);
    const fixed = (['key', 'type'] as const).filter(
      (name) => input[name] !== undefined && input[name] !== property[name],
    );
    if (fixed.length > 0)
      throw new InvalidParameterError(`${fixed.join(' and ')} cannot change once declared`, {
        errors: fixed.map((path) => ({ path, message: 'fixed at creation' })),
      });
    if (input.fallback_value === undefined) return property;
    checkFallback(property.type, input.fallback_value);
    await this.repository.setFallback(property.id, input.fallback_value);
    return { ...property, fallbackValue: input.fallback_value };
  }

  async remove(teamId: string, idOrKey: string): Promise<ContactProperty> {
    const property = await this.get(teamId, idOrKey);
    const users = (await Promise.all(this.usages.map((usage) => usage(teamId, property.key)))).flat();
    if (users.length > 0)
      throw new ResourceLockedError(
        `The property "${property.key}" is used by ${users.join(', ')}: delete or replace those first`,
      );
    await this.deps.knex.transaction((trx) => new ContactPropertyRepository(trx).delete(property.id));
    return property;
  }

  list(teamId: string, page: PageQuery) {
    return this.repository.list(teamId, page);
  }

  /** The team's properties keyed by lower-cased key: what contact writes and filters check against. */
  async byKey(teamId: string, within: Knex = this.deps.knex): Promise<Map<string, ContactProperty>> {
    const all = await new ContactPropertyRepository(within).all(teamId);
    return new Map(all.map((p) => [p.key.toLowerCase(), p]));
  }
}
