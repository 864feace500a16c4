import type { Contact, ContactWithProperties } from './contact.types.js';

/** A contact as list items show it: without properties (spec). */
export function publicContactItem(c: Contact) {
  return {
    id: c.id,
    email: c.email,
    first_name: c.firstName,
    last_name: c.lastName,
    created_at: c.createdAt.toISOString(),
    unsubscribed: c.unsubscribed,
  };
}

/** The retrieve shape, and what contact.* webhook events carry. */
export function publicContact(c: ContactWithProperties) {
  return { object: 'contact' as const, ...publicContactItem(c), properties: c.properties };
}
