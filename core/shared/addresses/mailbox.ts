import { findHiddenCharacter } from '../../../lib/text/hidden-characters.js';
import { isEmailAddress } from './email-address.js';

export type Mailbox = { name: string | null; address: string };

/**
 * `address` or `Display Name <address>` (the name optionally quoted). Anything else, and any
 * CR, LF or other control character, and any bidirectional-control or zero-width character
 * (in the name too), is refused: headers and the SMTP envelope are built from
 * this parsed value, never from the raw string.
 */
export function parseMailbox(input: string): Mailbox | undefined {
  if (/[\u0000-\u001f\u007f]/.test(input) || findHiddenCharacter(input)) return undefined;
  const value = input.trim();
  const named = /^(.*?)\s*<([^<>]+)>$/.exec(value);
  if (!named) return isEmailAddress(value) ? { name: null, address: value } : undefined;
  let name = named[1]!.trim();
  const address = named[2]!.trim();
  if (!isEmailAddress(address)) return undefined;
  if (name.startsWith('"') && name.endsWith('"') && name.length >= 2) name = name.slice(1, -1).replace(/\\(.)/g, '$1');
  else if (/["<>]/.test(name)) return undefined;
  if (name.length > 256) return undefined;
  return { name: name || null, address };
}

/** The address of `Name <address>` (or of a bare address), lower-cased: how recipients are compared. */
export function mailboxAddress(value: string): string {
  return (parseMailbox(value)?.address ?? value).toLowerCase();
}
