import type { Knex } from 'knex';
import { isUniqueViolation } from '../../db/errors.js';
import type { UnitOfWork, UnitsOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import { NotFoundError, UnprocessableValidationError } from '../../lib/errors.js';
import { isUuid, newId } from '../../lib/ids.js';
import { ContactRepository } from '../audience/contacts/contact.repository.js';
import type { Contact } from '../audience/contacts/contact.types.js';
import { isEmailAddress } from '../shared/addresses/email-address.js';
import type {
  CreateCustomEventInput,
  ListCustomEventsQuery,
  SendCustomEventInput,
  UpdateCustomEventInput,
} from './custom-event.schemas.js';
import { CustomEventRepository } from './custom-event.repository.js';
import { MAX_PAYLOAD_BYTES, type CustomEventDefinition, type EventOccurrence } from './custom-event.types.js';
import { EventOccurrenceRepository, type OccurrenceWrite } from './event-occurrence.repository.js';
import { isEventName } from './event-name.js';
import { payloadErrors } from './payload-rules.js';
import { SendLookups } from './send-lookups.js';

export type CustomEventDeps = { knex: Knex; clock: Clock; units: UnitsOfWork };

const nameTaken = (name: string) =>
  new UnprocessableValidationError(`An event named "${name}" already exists`, {
    errors: [{ path: 'name', message: 'already used by a live event' }],
  });

// One message for unknown, malformed and another team's: the answers must not differ.
const definitionNotFound = () => new NotFoundError('Event not found');

/** The group-commit writer of sent events: every send of one commit group is one INSERT. */
const writeOccurrences = (trx: Knex.Transaction, rows: OccurrenceWrite[]) =>
  new EventOccurrenceRepository(trx).insertMany(rows);

/**
 * Custom events: definitions (a name fixed at creation, unique among the team's live
 * definitions, and an optional schema replaced whole on update) and sends. A send checks the
 * payload against the schema and records one occurrence per call (no idempotency) in the
 * request's unit of work, so the 202 leaves only once the row is durable; the automations
 * engine consumes occurrences from there. Deleting a definition is soft and frees its name.
 */
export class CustomEventService {
  private readonly lookups: SendLookups;

  constructor(private readonly deps: CustomEventDeps) {
    this.lookups = new SendLookups(deps.knex);
  }

  private repository(within: Knex = this.deps.knex): CustomEventRepository {
    return new CustomEventRepository(within);
  }

  async create(teamId: string, input: CreateCustomEventInput): Promise<CustomEventDefinition> {
    const repository = this.repository();
    if (await repository.nameTaken(teamId, input.name)) throw nameTaken(input.name);
    const definition: CustomEventDefinition = {
      id: newId(),
      teamId,
      name: input.name,
      schema: input.schema ?? null,
      createdAt: this.deps.clock.now(),
      updatedAt: null,
    };
    try {
      await repository.insert(definition);
    } catch (err) {
      // A concurrent create of the same name won.
      if (isUniqueViolation(err)) throw nameTaken(input.name);
      throw err;
    }
    return definition;
  }

  /** By id or by name (a name is never UUID-shaped, so the two cannot be confused). */
  async get(teamId: string, identifier: string, within?: Knex): Promise<CustomEventDefinition> {
    const repository = this.repository(within);
    const found = isUuid(identifier)
      ? await repository.findById(teamId, identifier.toLowerCase())
      : isEventName(identifier)
        ? await repository.findByName(teamId, identifier)
        : undefined;
    if (!found) throw definitionNotFound();
    return found;
  }

  /** The live definition named `name`, or undefined (for the automations graph check). */
  async findByName(teamId: string, name: string, within?: Knex): Promise<CustomEventDefinition | undefined> {
    return isEventName(name) ? this.repository(within).findByName(teamId, name) : undefined;
  }

  list(teamId: string, query: ListCustomEventsQuery) {
    return this.repository().list(teamId, query);
  }

  /** Replaces the schema (null clears it). The name cannot change. */
  async update(teamId: string, identifier: string, input: UpdateCustomEventInput): Promise<CustomEventDefinition> {
    const definition = await this.get(teamId, identifier);
    if (input.name !== undefined && input.name !== definition.name)
      throw new UnprocessableValidationError('The event name cannot change', {
        errors: [{ path: 'name', message: 'cannot change' }],
      });
    const at = this.deps.clock.now();
    if (!(await this.repository().updateSchema(definition.id, input.schema, at))) throw definitionNotFound();
    return { ...definition, schema: input.schema, updatedAt: at };
  }

  /** Soft: the row stays for the occurrences that name it; the name is free again. */
  async remove(teamId: string, identifier: string): Promise<CustomEventDefinition> {
    const definition = await this.get(teamId, identifier);
    if (!(await this.repository().softDelete(definition.id, this.deps.clock.now()))) throw definitionNotFound();
    return definition;
  }

  /**
   * Sends an event for one contact: checks, then stages the occurrence in `unit` (the request's;
   * the caller commits it before answering) or, without one, commits it before returning.
   * Order of refusals: neither or both of contact_id and email (422), payload over 16 KB (422),
   * unknown event (404), payload disagreeing with the schema (422, one entry per key), unknown
   * contact (404).
   */
  async send(teamId: string, input: SendCustomEventInput, unit?: UnitOfWork): Promise<EventOccurrence> {
    const contactId = input.contact_id ?? undefined;
    const email = input.email ?? undefined;
    if ((contactId === undefined) === (email === undefined))
      throw new UnprocessableValidationError('Give exactly one of contact_id and email', {
        errors: [
          {
            path: contactId === undefined ? 'contact_id' : 'email',
            message: contactId === undefined ? 'give contact_id or email' : 'give contact_id or email, not both',
          },
        ],
      });
    const payload = input.payload ?? {};
    const payloadJson = JSON.stringify(payload);
    const bytes = Buffer.byteLength(payloadJson, 'utf8');
    if (bytes > MAX_PAYLOAD_BYTES)
      throw new UnprocessableValidationError(`The payload is ${bytes} bytes of JSON; at most ${MAX_PAYLOAD_BYTES}`, {
        errors: [{ path: 'payload', message: `must be at most ${MAX_PAYLOAD_BYTES} bytes (16 KB) of JSON` }],
      });
    // Concurrent sends share these reads (send-lookups.ts): one query per team per event-loop turn.
    const definition = isEventName(input.event) ? await this.lookups.definition(teamId, input.event) : undefined;
    if (!definition) throw new NotFoundError(`No event named "${input.event.slice(0, 100)}"`);
    const errors = payloadErrors(definition.schema, payload);
    if (errors.length > 0)
      throw new UnprocessableValidationError(
        `The payload does not match the schema of "${definition.name}": ${errors.map((e) => e.path).join(', ')}`,
        { errors },
      );
    const contact = await this.findContact(teamId, contactId, email);
    if (!contact) throw new NotFoundError('Contact not found');
    const occurrence: OccurrenceWrite = {
      id: newId(),
      teamId,
      definitionId: definition.id,
      eventName: definition.name,
      contactId: contact.id,
      payloadJson,
      createdAt: this.deps.clock.now(),
    };
    if (unit) unit.write('custom_event_occurrences', occurrence, writeOccurrences);
    else await this.deps.units.run((own) => own.write('custom_event_occurrences', occurrence, writeOccurrences));
    const { payloadJson: _stored, ...rest } = occurrence;
    return { ...rest, payload };
  }

  /** The contact by id or by address, in this team; undefined for malformed values too. */
  private async findContact(teamId: string, id?: string, email?: string): Promise<Contact | undefined> {
    if (id !== undefined) return isUuid(id) ? this.lookups.contact(teamId, id.toLowerCase()) : undefined;
    const contacts = new ContactRepository(this.deps.knex);
    const address = email!.trim();
    return isEmailAddress(address) ? contacts.findByEmail(teamId, address) : undefined;
  }

  /** The queue of sent events, for the automations engine and tests. */
  occurrences(within: Knex = this.deps.knex): EventOccurrenceRepository {
    return new EventOccurrenceRepository(within);
  }
}
