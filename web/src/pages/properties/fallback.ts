import type { PropertyType } from './property-types';

/** The fallback as the API wants it: null when empty, a number for a number property. */
export function fallbackValue(type: PropertyType, text: string): string | number | null {
  if (text.trim() === '') return null;
  return type === 'number' ? Number(text) : text;
}
