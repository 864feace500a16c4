import type { SpoolRef } from './segment-spool.js';

/**
 * A spool record's reference written as one string, for a column that names either a spool
 * record or something else (received_emails.raw_blob: a record since issue 37, a blob store
 * file name before). `spool:<segment>:<offset>:<length>`; segment names hold no colon.
 */
const PREFIX = 'spool:';
const FORM = /^spool:(seg-[A-Za-z0-9-]+\.spool):(\d{1,15}):(\d{1,15})$/;

export function formatSpoolRef(ref: SpoolRef): string {
  return `${PREFIX}${ref.segment}:${ref.offset}:${ref.length}`;
}

/** The reference, or null when the text is not one (an older value of the column). */
export function parseSpoolRef(text: string): SpoolRef | null {
  const match = FORM.exec(text);
  return match ? { segment: match[1]!, offset: Number(match[2]), length: Number(match[3]) } : null;
}

/**
 * The range of texts that reference records of `segment`, [from, to): an index range read finds
 * them (`;` is the character after `:`), on both dialects, where LIKE would not on SQLite.
 */
export function spoolRefRange(segment: string): [string, string] {
  return [`${PREFIX}${segment}:`, `${PREFIX}${segment};`];
}
