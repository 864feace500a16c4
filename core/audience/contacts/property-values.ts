import { InvalidParameterError } from '../../../lib/errors.js';
import type { ContactProperty } from '../properties/contact-property.types.js';
import { MAX_PROPERTY_STRING } from '../properties/contact-property.types.js';
import type { ValueWrite } from './contact.repository.js';

/**
 * Checks a request's `properties` against the team's declared properties (keyed lower-case):
 * every key declared, every value of the property's type (null removes the key). The first
 * offending key answers 422 invalid_parameter naming it; every offending key is in errors[].
 */
export function propertyWrites(input: Record<string, unknown>, declared: Map<string, ContactProperty>): ValueWrite[] {
  const writes: ValueWrite[] = [];
  const errors: Array<{ path: string; message: string }> = [];
  for (const [key, value] of Object.entries(input)) {
    const property = declared.get(key.toLowerCase());
    if (!property) {
      errors.push({ path: `properties.${key}`, message: `unknown property "${key}": declare it first` });
      continue;
    }
    if (value === null) {
      writes.push({ propertyId: property.id, type: property.type, value: null });
      continue;
    }
    const fits =
      property.type === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : typeof value === 'string' && value.length <= MAX_PROPERTY_STRING;
    if (!fits) {
      errors.push({
        path: `properties.${key}`,
        message:
          property.type === 'number'
            ? `"${key}" is a number property`
            : `"${key}" is a string property (at most ${MAX_PROPERTY_STRING} characters)`,
      });
      continue;
    }
    writes.push({ propertyId: property.id, type: property.type, value: value as string | number });
  }
  if (errors.length > 0) {
    const first = errors[0]!.path.slice('properties.'.length);
    throw new InvalidParameterError(`Invalid contact property "${first}": ${errors[0]!.message}`, { errors });
  }
  return writes;
}
