const CR = 0x0d;
const LF = 0x0a;

/** Buffers known to hold CRLF line breaks only (made by toCrlf), so later checks are free. */
const knownCrlf = new WeakSet<Buffer>();

/**
 * True when every line break is CRLF: each LF has a CR before it, and there are as many CRs as
 * LFs (so no CR stands alone). Found with indexOf, which searches natively, a line at a time.
 */
export function hasOnlyCrlf(message: Buffer): boolean {
  if (knownCrlf.has(message)) return true;
  let lfs = 0;
  for (let at = message.indexOf(LF); at !== -1; at = message.indexOf(LF, at + 1)) {
    if (at === 0 || message[at - 1] !== CR) return false;
    lfs++;
  }
  let crs = 0;
  for (let at = message.indexOf(CR); at !== -1; at = message.indexOf(CR, at + 1)) crs++;
  return crs === lfs;
}

/**
 * The message with every line break CRLF: a bare LF and a bare CR each become CRLF, as
 * nodemailer's DATA stream turns them on the wire. A signer must hash what the receiver will
 * get, so it normalises first; the result is remembered as CRLF-only (see hasOnlyCrlf).
 */
export function toCrlf(message: Buffer): Buffer {
  if (hasOnlyCrlf(message)) return markCrlf(message);
  return markCrlf(Buffer.from(message.toString('latin1').replace(/\r\n|\r|\n/g, '\r\n'), 'latin1'));
}

/** Records that `message` holds CRLF line breaks only; the caller guarantees it, and changes it no more. */
export function markCrlf(message: Buffer): Buffer {
  knownCrlf.add(message);
  return message;
}

/** The longest line of a message in octets, line break excluded (RFC 5322 allows 998). */
export function longestLine(message: Buffer): number {
  let longest = 0;
  let start = 0;
  for (let at = message.indexOf(LF); at !== -1; at = message.indexOf(LF, at + 1)) {
    const end = at > start && message[at - 1] === CR ? at - 1 : at;
    if (end - start > longest) longest = end - start;
    start = at + 1;
  }
  return Math.max(longest, message.length - start);
}
