export const PROPERTY_TYPES = ['string', 'number'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];
export type PropertyValue = string | number;

export type ContactProperty = {
  id: string;
  teamId: string;
  /** As declared; it is also the merge variable. */
  key: string;
  type: PropertyType;
  fallbackValue: PropertyValue | null;
  createdAt: Date;
};

/** The longest string a property value may hold (indexed for segment filters). */
export const MAX_PROPERTY_STRING = 500;
