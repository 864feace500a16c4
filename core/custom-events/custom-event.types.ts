/** The payload types a definition's schema may declare (spec: Custom event definition). */
export const SCHEMA_TYPES = ['string', 'number', 'boolean', 'date'] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];
/** A flat map of payload key to type. */
export type EventSchema = Record<string, SchemaType>;

/** Limits of the spec's table: name 100 characters; schema 50 keys; payload 16 KB of JSON. */
export const MAX_NAME_LENGTH = 100;
export const MAX_SCHEMA_KEYS = 50;
/** Our own bound on a schema key (the spec sets none); a payload key longer than this cannot be declared. */
export const MAX_SCHEMA_KEY_LENGTH = 100;
export const MAX_PAYLOAD_BYTES = 16 * 1024;
/** Names with this prefix are the platform's own triggers (svc:contact.created, ...): never a definition. */
export const RESERVED_PREFIX = 'svc:';

/** A custom event definition: a name unique among the team's live definitions, and an optional schema. */
export type CustomEventDefinition = {
  id: string;
  teamId: string;
  /** Fixed at creation. */
  name: string;
  schema: EventSchema | null;
  createdAt: Date;
  /** Null until the first update. */
  updatedAt: Date | null;
};

/**
 * One sent event (a row of custom_event_occurrences): what the automations engine consumes.
 * `definitionId` is null for platform events (svc:...) recorded into the same queue.
 */
export type EventOccurrence = {
  id: string;
  teamId: string;
  definitionId: string | null;
  eventName: string;
  contactId: string;
  payload: Record<string, unknown>;
  createdAt: Date;
};
