import type { TransformCallback } from 'node:stream';
import DataStream from 'nodemailer/lib/smtp-connection/data-stream';
import { hasOnlyCrlf } from '../../lib/mail/line-endings.js';

const LF = 0x0a;
const DOT = 0x2e;
const LINE_START_DOT = Buffer.from('\n.');
const STUFFED_DOT = Buffer.from('.');
const END_AFTER_CRLF = Buffer.from('.\r\n');
const END = Buffer.from('\r\n.\r\n');

/** Dot-stuffing of a CRLF-only message: a dot that starts a line gets another in front. */
export function stuffDots(message: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  if (message[0] === DOT) parts.push(STUFFED_DOT);
  for (let at = message.indexOf(LINE_START_DOT); at !== -1; at = message.indexOf(LINE_START_DOT, at + 2)) {
    parts.push(message.subarray(from, at + 1), STUFFED_DOT);
    from = at + 1;
  }
  if (parts.length === 0) return message;
  parts.push(message.subarray(from));
  return Buffer.concat(parts);
}

/**
 * nodemailer's DATA stream (dot-stuffing, bare CR and LF made CRLF, the final dot) with a fast
 * path for what the MTA sends: one buffer whose line breaks are all CRLF already (the DKIM
 * signer normalises them and marks the result, so checking it costs nothing). That buffer is
 * stuffed with native searches instead of a JavaScript loop over every byte, and leaves with
 * the final dot in one socket write. Anything else (a stream, a second chunk, a bare CR or LF
 * anywhere) goes through nodemailer's own transform, so the protection against SMTP smuggling
 * is nodemailer's wherever the fast path does not apply.
 */
export class WireDataStream extends DataStream {
  /** The first chunk, stuffed, held back so it leaves together with the final dot. */
  private held: Buffer | null = null;

  override _transform(chunk: Buffer | string, encoding: BufferEncoding, done: TransformCallback): void {
    const canTakeFastPath = this.inByteCount === 0 && this.held === null && Buffer.isBuffer(chunk) && chunk.length > 0 && hasOnlyCrlf(chunk);
    if (!canTakeFastPath) {
      this.release();
      return (DataStream.prototype as unknown as { _transform: WireDataStream['_transform'] })._transform.call(this, chunk, encoding, done);
    }
    this.inByteCount += chunk.length;
    this.held = stuffDots(chunk);
    this.lastByte = chunk[chunk.length - 1]!;
    done();
  }

  override _flush(done: TransformCallback): void {
    const held = this.held;
    if (held === null) return (DataStream.prototype as unknown as { _flush: WireDataStream['_flush'] })._flush.call(this, done);
    this.held = null;
    const end = this.lastByte === LF ? END_AFTER_CRLF : END;
    this.outByteCount += held.length + end.length;
    this.push(Buffer.concat([held, end], held.length + end.length));
    done();
  }

  /** A later chunk came after all: what was held goes first. */
  private release(): void {
    if (this.held === null) return;
    this.outByteCount += this.held.length;
    this.push(this.held);
    this.held = null;
  }
}
