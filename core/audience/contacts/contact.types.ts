import type { PropertyValue } from '../properties/contact-property.types.js';

export type Contact = {
  id: string;
  teamId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  /** The global opt-out: no broadcast reaches the contact whatever their topics say. */
  unsubscribed: boolean;
  createdAt: Date;
  updatedAt: Date;
};

/** A contact with its property values, keyed by the property's declared key. */
export type ContactWithProperties = Contact & { properties: Record<string, PropertyValue> };
