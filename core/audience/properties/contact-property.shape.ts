import type { ContactProperty } from './contact-property.types.js';

/** A property as list items show it; retrieve adds `object`. */
export function publicPropertyItem(p: ContactProperty) {
  return { id: p.id, key: p.key, type: p.type, fallback_value: p.fallbackValue, created_at: p.createdAt.toISOString() };
}

export function publicProperty(p: ContactProperty) {
  return { object: 'contact_property' as const, ...publicPropertyItem(p) };
}
