import type { CustomEventDefinition } from './custom-event.types.js';

/** A list item: every field of the definition (the SDK's Event), without `object`. */
export function publicCustomEventItem(d: CustomEventDefinition) {
  return {
    id: d.id,
    name: d.name,
    schema: d.schema,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt ? d.updatedAt.toISOString() : null,
  };
}

export function publicCustomEvent(d: CustomEventDefinition) {
  return { object: 'event' as const, ...publicCustomEventItem(d) };
}
