import { MAX_NAME_LENGTH, RESERVED_PREFIX } from './custom-event.types.js';

/** Any 8-4-4-4-12 hex shape, whatever its version and variant digits: never a name. */
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NAME_CHARACTERS = /^[a-z0-9._-]+$/;

/**
 * The spec's name rules, first failure first: lower-case letters, digits, `.`, `_`, `-`; starts
 * with a letter; at most 100 characters; never UUID-shaped (so `{identifier}` is an id or a name,
 * never both); the `svc:` prefix is the platform's (reported as such, in any case, though `:`
 * is refused anyway). Returns null for a good name.
 */
export function nameProblem(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.toLowerCase().startsWith(RESERVED_PREFIX))
    return `the prefix ${RESERVED_PREFIX} is reserved for platform triggers`;
  if (name.length > MAX_NAME_LENGTH) return `must be at most ${MAX_NAME_LENGTH} characters`;
  if (!/^[a-z]/.test(name)) return 'must start with a lower-case letter';
  if (!NAME_CHARACTERS.test(name)) return 'may hold only lower-case letters, digits, ".", "_" and "-"';
  if (UUID_SHAPE.test(name)) return 'must not be shaped like a UUID';
  return null;
}

export const isEventName = (value: string): boolean => nameProblem(value) === null;
