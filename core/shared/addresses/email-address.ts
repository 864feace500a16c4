import { findHiddenCharacter } from '../../../lib/text/hidden-characters.js';

/**
 * E-mail addresses as the API accepts them: one @, a local part of 1..64 printable characters
 * without spaces, a domain with a dot; 320 characters at most; no bidirectional-control or
 * zero-width character anywhere. Matching is case-insensitive.
 */
const ADDRESS =
  /^[^\s@<>()[\]\\,;:"\u0000-\u001f\u007f]{1,64}@(?=.{1,253}$)[A-Za-z0-9\u00a0-\uffff](?:[A-Za-z0-9\u00a0-\uffff-]{0,61}[A-Za-z0-9\u00a0-\uffff])?(?:\.[A-Za-z0-9\u00a0-\uffff](?:[A-Za-z0-9\u00a0-\uffff-]{0,61}[A-Za-z0-9\u00a0-\uffff])?)+$/;

export function isEmailAddress(value: string): boolean {
  return value.length <= 320 && ADDRESS.test(value) && findHiddenCharacter(value) === undefined;
}

export function normalizeEmail(value: string): string {
  return value.trim().toLowerCase();
}
