import { v7 as uuidv7, validate, version } from 'uuid';

/**
 * Ids are time-ordered UUIDs (v7): inserts land at the end of the primary-key index so they
 * stay fast once a table outgrows memory, and ordering by id is ordering by creation time,
 * which is what list cursors rely on.
 */
export function newId(): string {
  return uuidv7();
}

/** Any UUID shape (v1..v8), lower or upper case: what path and cursor parameters accept. */
export function isUuid(value: string): boolean {
  return validate(value);
}

export function isUuidV7(value: string): boolean {
  return validate(value) && version(value) === 7;
}
