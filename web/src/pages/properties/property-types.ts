/** A declared contact property (GET /contact-properties): the API knows two types. */
export type PropertyType = 'string' | 'number';

export type ContactProperty = {
  id: string;
  key: string;
  type: PropertyType;
  fallback_value: string | number | null;
  created_at: string;
};
