/**
 * How a message finds its conversation (RFC 5322 3.6.4): the ids in its In-Reply-To and
 * References fields name earlier messages; a message whose ids match none starts a thread.
 */

/** A Message-ID as stored: without angle brackets or surrounding space (replies copy ids verbatim, so case is kept). */
export function normalizeMessageId(id: string | null | undefined): string | null {
  const bare = (id ?? '').trim().replace(/^<|>$/g, '').trim();
  return bare === '' ? null : bare;
}

/** Every `<id>` in a field value (References, In-Reply-To), in order. */
export function messageIdsIn(value: string | null | undefined): string[] {
  return [...(value ?? '').matchAll(/<([^<>\s]+)>/g)].map((match) => match[1]!);
}

/** The header block of a raw message, unfolded, as lower-cased name -> first value. */
function headerValues(raw: Buffer, names: ReadonlySet<string>): Map<string, string> {
  const text = raw.subarray(0, Math.min(raw.length, 256 * 1024)).toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const block = (end < 0 ? text : text.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  const found = new Map<string, string>();
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 1) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (names.has(name) && !found.has(name)) found.set(name, line.slice(colon + 1).trim());
  }
  return found;
}

const THREADING_FIELDS = new Set(['in-reply-to', 'references']);

/**
 * The ids a received message refers to: In-Reply-To first (its parent), then References from
 * newest to oldest, without repeats. Read from the header block alone (no MIME parse).
 */
export function referencedIds(raw: Buffer): string[] {
  const fields = headerValues(raw, THREADING_FIELDS);
  const ids = [...messageIdsIn(fields.get('in-reply-to')), ...messageIdsIn(fields.get('references')).reverse()];
  return [...new Set(ids)];
}

/** The References of a reply to `parent`: the parent's References (or In-Reply-To) and its own id. */
export function replyReferences(parentReferences: string[], parentId: string | null): string[] {
  const ids = parentId ? [...parentReferences, parentId] : parentReferences;
  return [...new Set(ids)];
}

/** A subject with its reply/forward prefixes added once: "Re: x" stays "Re: x". */
export function prefixedSubject(prefix: 'Re' | 'Fwd', subject: string | null): string {
  const base = (subject ?? '').trim();
  const already = prefix === 'Re' ? /^re:/i : /^(fwd?|fw):/i;
  return already.test(base) ? base : `${prefix}: ${base}`.trim();
}
