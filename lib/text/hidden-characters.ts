/**
 * Characters that change how text is displayed without being seen: bidirectional controls
 * (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069) and zero-width or invisible ones
 * (U+180E, U+200B-U+200D, U+2060-U+2064, U+FEFF). In a domain name or an address they make two
 * different strings look the same (and IDN mapping silently drops some of them), so names and
 * addresses carrying one are refused rather than cleaned.
 */
const HIDDEN = /[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** The first hidden character as U+XXXX, or undefined when there is none. */
export function findHiddenCharacter(value: string): string | undefined {
  const found = HIDDEN.exec(value);
  return found ? `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : undefined;
}
