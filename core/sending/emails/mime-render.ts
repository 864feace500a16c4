import type { Transform } from 'node:stream';
import * as base64 from 'nodemailer/lib/base64';
import type MimeNode from 'nodemailer/lib/mime-node';
import * as qp from 'nodemailer/lib/qp';
import { withinLineLimits } from './header-folding.js';

/** The parts of a MimeNode this renderer reads that its type declarations leave out. */
type NodeInternals = MimeNode & { _raw?: unknown; _transforms: unknown[]; _processFuncs: unknown[] };

/**
 * Serializes a compiled nodemailer MIME tree synchronously, to the same bytes as the tree's own
 * `build()`: the headers come from each node's `buildHeaders()` and the bodies from nodemailer's
 * own quoted-printable and base64 encoders, in the order and with the delimiters of
 * `MimeNode.stream()`. What it skips is the stream machinery around them (a PassThrough, a
 * pipeline, an encoder stream and several event-loop turns per part), which cost a send more CPU
 * than composing the message itself. Returns null for a tree it does not cover (raw content,
 * streams, files or URLs, transforms, newline conversion): the caller then builds that one with
 * `build()`. test/core/sending/emails/mime-render.test.ts holds it to `build()` byte for byte.
 */
export function renderMimeTree(root: MimeNode): Buffer | null {
  const node = root as NodeInternals;
  if (node._transforms.length > 0 || node._processFuncs.length > 0 || node.newline) return null;
  const out = new Output();
  if (!renderNode(node, out)) return null;
  // MimeNode.createReadStream ends the message with a line break (its LastNewline stage).
  const last = out.lastByte();
  if (last === 0x0d) out.text('\n');
  else if (last !== 0x0a) out.text('\r\n');
  return out.bytes();
}

/** One node as MimeNode.stream() writes it: headers, blank line, encoded content, then its children. */
function renderNode(node: NodeInternals, out: Output): boolean {
  if (node._raw) return false;
  // nodemailer folds at whitespace only: a field with a line over 998 octets is re-written (header-folding.ts).
  out.text(withinLineLimits(node.buildHeaders()) + '\r\n\r\n');
  if (node.content) {
    // The encoding stream() uses is getTransferEncoding()'s, which buildHeaders() has just set as
    // this header (normalized) whenever there is content: read back rather than worked out again
    // (that would scan the whole body a second time).
    const transferEncoding = node.getHeader('Content-Transfer-Encoding');
    const content = node.content;
    if (typeof content !== 'string' && !Buffer.isBuffer(content)) return false;
    if (transferEncoding === 'quoted-printable' || transferEncoding === 'base64') {
      const bytes = typeof content === 'string' ? Buffer.from(content) : content;
      // As stream() configures it: outside text a lone CR or LF is data.
      const encoder =
        transferEncoding === 'base64'
          ? new base64.Encoder({})
          : new qp.Encoder({ binary: !/^text\//i.test(node.contentType ?? '') });
      encodeWith(encoder, bytes, out);
    } else if (typeof content === 'string') {
      out.text(content);
    } else {
      out.binary(content);
    }
  }
  if (!node.multipart) return true;
  for (const [i, child] of node.childNodes.entries()) {
    out.text(`${i > 0 ? '\r\n' : ''}--${node.boundary}\r\n`);
    if (!renderNode(child as NodeInternals, out)) return false;
  }
  out.text(`\r\n--${node.boundary}--\r\n`);
  return true;
}

/**
 * A text body in `transferEncoding`, as renderNode writes it (the same encoders, one chunk):
 * for a message rendered on a template (mime-template.ts), whose other parts are kept.
 */
export function encodeTextBody(transferEncoding: string, contentType: string, content: string): string {
  if (transferEncoding !== 'quoted-printable' && transferEncoding !== 'base64') return content;
  const out = new Output();
  const encoder =
    transferEncoding === 'base64' ? new base64.Encoder({}) : new qp.Encoder({ binary: !/^text\//i.test(contentType) });
  encodeWith(encoder, Buffer.from(content), out);
  return out.pendingText();
}

/**
 * The message being written. Text (headers, delimiters, the encoders' ASCII output and string
 * bodies) is gathered as one string and encoded as UTF-8 once, as the stream would encode each
 * piece: every piece of text starts and ends next to ASCII, so no character spans two pieces.
 * Only a Buffer body is kept as bytes.
 */
class Output {
  private readonly parts: Buffer[] = [];
  private pending = '';

  text(value: string): void {
    this.pending += value;
  }

  binary(value: Buffer): void {
    this.flush();
    this.parts.push(value);
  }

  /** What was written, when it was all text (the encoders' output). */
  pendingText(): string {
    return this.pending;
  }

  lastByte(): number | undefined {
    if (this.pending.length > 0) return this.pending.charCodeAt(this.pending.length - 1);
    for (let i = this.parts.length - 1; i >= 0; i--) {
      const part = this.parts[i]!;
      if (part.length > 0) return part[part.length - 1];
    }
    return undefined;
  }

  bytes(): Buffer {
    this.flush();
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.parts.push(Buffer.from(this.pending));
    this.pending = '';
  }
}

/**
 * Runs nodemailer's encoder over the whole content as one chunk, which is what the encoder gets
 * from the content's PassThrough in stream(): its transform and flush steps are synchronous, so
 * they are called directly and what they push is collected.
 */
function encodeWith(encoder: Transform, input: Buffer, out: Output): void {
  (encoder as Collecting).collected = out;
  encoder.push = collect;
  settled = 0;
  encoder._transform(input, 'buffer' as BufferEncoding, settle); // a Buffer chunk, as a stream passes it
  encoder._flush(settle);
  if (settled !== 2) throw new Error('nodemailer encoder did not finish synchronously');
}

// Module-level rather than closures per call: under tsx (esbuild's keepNames) every named
// closure costs an Object.defineProperty, a measurable share of a message's rendering.
type Collecting = Transform & { collected: Output };
let settled = 0;

/** Both encoders emit ASCII only: quoted-printable as strings, base64 as bytes. */
function collect(this: Collecting, chunk: unknown): boolean {
  if (chunk !== null && chunk !== undefined)
    this.collected.text(typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('latin1'));
  return true;
}

function settle(err?: Error | null): void {
  if (err) throw err;
  settled++;
}
