import type { Knex } from 'knex';
import type { FileBlobStore } from '../../lib/blob-store.js';
import type { Clock } from '../../lib/clock.js';
import type { EventLog } from '../events/log/event-log.js';
import { ConsentLog } from './consent/consent-log.js';
import { ContactEventReader } from './contacts/contact-events.js';
import { ContactService } from './contacts/contact.service.js';
import { foldMissedPropertyValues } from './contacts/folded-value-catch-up.js';
import { ContactImportRunner } from './imports/contact-import.runner.js';
import { ContactImportService } from './imports/contact-import.service.js';
import { ContactPropertyService } from './properties/contact-property.service.js';
import { SegmentService } from './segments/segment.service.js';
import { TopicService } from './topics/topic.service.js';

export type AudienceInfrastructure = {
  knex: Knex;
  clock: Clock;
  masterKey: string;
  events: EventLog;
  blobs: FileBlobStore;
};

/** The audience group: contacts, their properties, topics, segments and consent records. */
export function createAudienceServices(infra: AudienceInfrastructure) {
  const { knex, clock, events } = infra;
  // Properties ask segments whether a filter still reads them; segments are built after.
  let segments: SegmentService | undefined;
  const contactProperties = new ContactPropertyService({
    knex,
    clock,
    usage: (teamId, key) => segments!.usingProperty(teamId, key),
  });
  const topics = new TopicService({ knex, clock });
  const consent = new ConsentLog({ knex, clock, masterKey: infra.masterKey });
  const contacts = new ContactService({ knex, clock, events, consent, properties: contactProperties, topics });
  segments = new SegmentService({ knex, clock, properties: contactProperties, topics, contacts });
  const imports = { knex, clock, blobs: infra.blobs, properties: contactProperties };
  const contactImports = new ContactImportService({ ...imports, topics });
  const contactImportRunner = new ContactImportRunner({ ...imports, consent });
  const contactEvents = new ContactEventReader(knex);
  return {
    contacts,
    contactProperties,
    topics,
    segments,
    consent,
    contactImports,
    contactImportRunner,
    contactEvents,
    /** Folds string property values a previous release wrote without their fold (a scheduler job). */
    foldMissedPropertyValues: () => foldMissedPropertyValues(knex),
  };
}

export type AudienceServices = ReturnType<typeof createAudienceServices>;
