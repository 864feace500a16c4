import { endianness } from 'node:os';

/**
 * Relaxed body canonicalization (RFC 6376 3.4.4) over bytes:
 *   - every run of WSP (SP, HTAB) inside a line becomes one SP,
 *   - WSP at the end of a line is dropped,
 *   - empty lines at the end of the body are dropped, and a non-empty body ends in CRLF.
 *
 * It runs on every message, over the whole body, so the common case is made cheap: only a
 * HTAB, or a SP followed by SP, HTAB or CR, can need a change. Those places are found four
 * bytes at a time (spaces are too frequent in prose for a native indexOf call each, and a
 * regex walks every space too); everything between two of them is copied as is, and a body
 * with none (base64 attachments, most quoted-printable) is hashed without any copy.
 */

const SP = 0x20;
const HTAB = 0x09;
const CR = 0x0d;
const LF = 0x0a;
const CRLF = Buffer.from('\r\n');
const EMPTY = Buffer.alloc(0);
// The word scan reads bytes in memory order from 32-bit loads; big-endian hosts take the
// byte loop instead of a second set of masks.
const WORD_SCAN = endianness() === 'LE';

const isWsp = (byte: number | undefined) => byte === SP || byte === HTAB;
/** HTAB, or SP followed by SP, HTAB or CR: the only places relaxed canonicalization changes. */
const needsWork = (bytes: Buffer, at: number) =>
  bytes[at] === HTAB || (bytes[at] === SP && (isWsp(bytes[at + 1]) || bytes[at + 1] === CR));

/** High bit of each byte set where that byte of `word` is zero, exactly (no false positives). */
const zeroBytes = (word: number) => ~(((word & 0x7f7f7f7f) + 0x7f7f7f7f) | word | 0x7f7f7f7f);
const lowestByte = (mask: number) => (31 - Math.clz32(mask & -mask)) >>> 3;

function findByBytes(bytes: Buffer, from: number): number {
  for (let at = from; at < bytes.length; at++) if (needsWork(bytes, at)) return at;
  return -1;
}

/**
 * Finds the places needing work four bytes per step. The 32-bit view is made once per body:
 * creating a typed array per search cost more than the search itself on prose, where such
 * places come every line.
 */
class WhitespaceScanner {
  readonly #bytes: Buffer;
  readonly #words: Uint32Array | null;
  /** Index in #bytes of the first byte of #words[0]. */
  readonly #lead: number;

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
    this.#lead = Math.min(bytes.length, (4 - (bytes.byteOffset & 3)) & 3);
    const count = (bytes.length - this.#lead) >>> 2;
    this.#words = WORD_SCAN && count > 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset + this.#lead, count) : null;
  }

  /** First index >= from that needs work; -1 when there is none. */
  next(from: number): number {
    const bytes = this.#bytes;
    const words = this.#words;
    if (words === null) return findByBytes(bytes, from);
    const wordsEnd = this.#lead + words.length * 4;
    let at = from;
    // Byte by byte through the unaligned head, or up to the next word boundary.
    while (at < bytes.length && (at < this.#lead || ((at - this.#lead) & 3) !== 0)) {
      if (needsWork(bytes, at)) return at;
      at += 1;
    }
    if (at >= wordsEnd) return findByBytes(bytes, at);
    let previousEndsInSpace = false;
    for (let w = (at - this.#lead) >>> 2; w < words.length; w++) {
      const word = words[w]!;
      const spaces = zeroBytes(word ^ 0x20202020);
      const tabs = zeroBytes(word ^ 0x09090909);
      if (spaces === 0 && tabs === 0 && !previousEndsInSpace) continue;
      const followers = spaces | tabs | zeroBytes(word ^ 0x0d0d0d0d);
      const base = this.#lead + w * 4;
      if (previousEndsInSpace && (followers & 0x80) !== 0) return base - 1;
      // Little-endian: byte k+1 of the word shifted down lines up with byte k.
      const found = tabs | (spaces & (followers >>> 8));
      if (found !== 0) return base + lowestByte(found);
      previousEndsInSpace = (spaces & 0x80000000) !== 0;
    }
    return findByBytes(bytes, Math.max(at, wordsEnd - 1));
  }
}

/** First index >= from holding HTAB, or SP followed by SP, HTAB or CR; -1 when there is none. */
export function findWhitespaceToFix(bytes: Buffer, from: number): number {
  return new WhitespaceScanner(bytes).next(from);
}

/** Copies short runs in JS: a native copy call costs more than the bytes of a typical run. */
function copyRun(from: Buffer, start: number, end: number, to: Buffer, at: number): number {
  if (end - start > 64) return from.copy(to, at, start, end);
  for (let i = start; i < end; i++) to[at + i - start] = from[i]!;
  return end - start;
}

/** Collapses WSP runs and drops those ending a line; returns `body` itself when nothing changes. */
function collapseWhitespace(body: Buffer): Buffer {
  const scanner = new WhitespaceScanner(body);
  let start = scanner.next(0);
  if (start === -1) return body;
  const out = Buffer.allocUnsafe(body.length);
  let read = 0;
  let write = 0;
  while (start !== -1) {
    write += copyRun(body, read, start, out, write);
    let end = start + 1;
    while (end < body.length && isWsp(body[end])) end += 1;
    const endsLine = end === body.length || (body[end] === CR && body[end + 1] === LF);
    if (!endsLine) out[write++] = SP;
    read = end;
    start = scanner.next(end);
  }
  write += copyRun(body, read, body.length, out, write);
  return out.subarray(0, write);
}

/**
 * The canonical body as one or two buffers to hash in order (two only when a CRLF has to be
 * added to a body that lacks a final line break, which saves copying the body to append it).
 */
export function relaxedBodyParts(body: Buffer): Buffer[] {
  const collapsed = collapseWhitespace(body);
  let end = collapsed.length;
  // A single trailing SP (a longer run was collapsed above) on a last line without CRLF.
  if (end > 0 && collapsed[end - 1] === SP) end -= 1;
  while (end >= 2 && collapsed[end - 1] === LF && collapsed[end - 2] === CR) end -= 2;
  if (end === 0) return [];
  if (collapsed[end] === CR && collapsed[end + 1] === LF) return [collapsed.subarray(0, end + 2)];
  return [collapsed.subarray(0, end), CRLF];
}

/** The canonical body in one buffer (tests and callers that want bytes rather than a hash). */
export function relaxedBody(body: Buffer): Buffer {
  const parts = relaxedBodyParts(body);
  return parts.length === 0 ? EMPTY : parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}
