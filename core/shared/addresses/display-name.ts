import type { Mailbox } from './mailbox.js';

/**
 * A display name that shows an address other than the mailbox's own
 * (`"ceo@bank.example" <hello@our-domain>`) is the oldest phishing pattern: most mail clients
 * show the name and hide the address. Read the way a mail client shows it: RFC 2047
 * encoded-words decoded (a name may arrive encoded, and clients decode even inside quotes),
 * compatibility forms folded (NFKC: fullwidth ＠ U+FF20 and small ﹫ U+FE6B become @,
 * fullwidth letters and dots ASCII; the ideographic full stop a dot) and invisible format
 * characters dropped; then anything shaped like local@domain.tld is an address shown.
 */

const ENCODED_WORD = /=\?([^?\s]{1,64})\?([BbQq])\?([^?\s]*)\?=/g;
/** Whitespace between two encoded-words is not shown (RFC 2047 6.2). */
const BETWEEN_WORDS = /(\?=)[ \t\r\n]+(?==\?)/g;
const FORMAT_CHARACTERS = /\p{Cf}/gu;
const OTHER_FULL_STOPS = /[\u3002\uff61]/g;
/** Characters that end an address as a reader sees it: space, brackets, quotes, list separators. */
const ADDRESS_SHAPED = /[^\s@<>()[\]{}\\,;:"]+@[^\s@<>()[\]{}\\,;:"]+\.[^\s@<>()[\]{}\\,;:".]+/g;
/** A name is short (mailbox.ts caps it at 256); decoded and folded, more than this is never needed (and bounds the match). */
const MAX_DECODED_CHARS = 4096;

function qBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text[i] === '=' ? /^[0-9A-Fa-f]{2}$/.exec(text.slice(i + 1, i + 3))?.[0] : undefined;
    if (hex) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(text[i] === '_' ? 0x20 : text.charCodeAt(i) & 0xff);
  }
  return Buffer.from(bytes);
}

function decodeWord(charset: string, encoding: string, text: string): string {
  const bytes = encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64') : qBytes(text);
  try {
    // RFC 2231 allows a language after the charset: utf-8*en.
    return new TextDecoder(charset.split('*')[0]!.toLowerCase()).decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

/** The text with its RFC 2047 encoded-words decoded, as a mail client shows it. */
export function decodeEncodedWords(text: string): string {
  return text
    .replace(BETWEEN_WORDS, '$1')
    .replace(ENCODED_WORD, (_, charset: string, encoding: string, word: string) => decodeWord(charset, encoding, word));
}

/** The name as a reader sees it: decoded (twice at most: an encoded-word may hide another), folded, trimmed of invisibles. */
function shownText(name: string): string {
  let text = name;
  for (let pass = 0; pass < 3; pass++) {
    const decoded = decodeEncodedWords(text).slice(0, MAX_DECODED_CHARS);
    if (decoded === text) break;
    text = decoded;
  }
  const folded = text.normalize('NFKC').slice(0, MAX_DECODED_CHARS);
  return folded.replace(OTHER_FULL_STOPS, '.').replace(FORMAT_CHARACTERS, '');
}

/** Every address a display name shows, lower-cased, without the quotes or dots around it. */
export function addressesShownIn(name: string): string[] {
  const found = shownText(name).match(ADDRESS_SHAPED) ?? [];
  return found.map((address) => address.replace(/^['`]+|['`.]+$/g, '').toLowerCase());
}

/** The first address the mailbox's display name shows that is not its own address, if any. */
export function otherAddressShown(mailbox: Mailbox): string | undefined {
  if (!mailbox.name) return undefined;
  const own = mailbox.address.normalize('NFKC').toLowerCase();
  return addressesShownIn(mailbox.name).find((shown) => shown !== own);
}
