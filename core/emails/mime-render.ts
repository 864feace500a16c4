import type { Transform } from 'node:stream';
import * as base64 from 'nodemailer/lib/base64';
import type MimeNode from 'nodemailer/lib/mime-node';
import * as qp from 'nodemailer/lib/qp';

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
 * `build()`. test/core/emails/mime-render.test.ts holds it to `build()` byte for byte.
 */
export function renderMimeTree(root: MimeNode): Buffer | null {
  const node = root as NodeInternals;
  if (node._transforms.length > 0 || node._processFuncs.length > 0 || node.newline) return null;
  const chunks: Buffer[] = [];
  if (!renderNode(node, chunks)) return null;
  // MimeNode.createReadStream ends the message with a line break (its LastNewline stage).
  const last = chunks.length > 0 ? lastByte(chunks) : undefined;
  if (last === 0x0d) chunks.push(Buffer.from('\n'));
  else if (last !== 0x0a) chunks.push(Buffer.from('\r\n'));
  return Buffer.concat(chunks);
}

/** One node as MimeNode.stream() writes it: headers, blank line, encoded content, then its children. */
function renderNode(node: NodeInternals, chunks: Buffer[]): boolean {
  if (node._raw) return false;
  // stream() decides the encoding before building the headers (buildHeaders records it).
  const transferEncoding = node.getTransferEncoding();
  chunks.push(Buffer.from(node.buildHeaders() + '\r\n\r\n'));
  if (node.content) {
    const content = node.content;
    if (typeof content !== 'string' && !Buffer.isBuffer(content)) return false;
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    if (transferEncoding === 'quoted-printable') {
      // As stream() configures it: outside text a lone CR or LF is data.
      encodeWith(new qp.Encoder({ binary: !/^text\//i.test(node.contentType ?? '') }), bytes, chunks);
    } else if (transferEncoding === 'base64') {
      encodeWith(new base64.Encoder({}), bytes, chunks);
    } else {
      chunks.push(bytes);
    }
  }
  if (!node.multipart) return true;
  for (const [i, child] of node.childNodes.entries()) {
    chunks.push(Buffer.from(`${i > 0 ? '\r\n' : ''}--${node.boundary}\r\n`));
    if (!renderNode(child as NodeInternals, chunks)) return false;
  }
  chunks.push(Buffer.from(`\r\n--${node.boundary}--\r\n`));
  return true;
}

/**
 * Runs nodemailer's encoder over the whole content as one chunk, which is what the encoder gets
 * from the content's PassThrough in stream(): its transform and flush steps are synchronous, so
 * they are called directly and what they push is collected.
 */
function encodeWith(encoder: Transform, input: Buffer, chunks: Buffer[]): void {
  (encoder as Collecting).collected = chunks;
  encoder.push = collect;
  settled = 0;
  encoder._transform(input, 'buffer' as BufferEncoding, settle); // a Buffer chunk, as a stream passes it
  encoder._flush(settle);
  if (settled !== 2) throw new Error('nodemailer encoder did not finish synchronously');
}

// Module-level rather than closures per call: under tsx (esbuild's keepNames) every named
// closure costs an Object.defineProperty, a measurable share of a message's rendering.
type Collecting = Transform & { collected: Buffer[] };
let settled = 0;

function collect(this: Collecting, chunk: unknown, encoding?: BufferEncoding): boolean {
  if (chunk !== null && chunk !== undefined) this.collected.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : (chunk as Buffer));
  return true;
}

function settle(err?: Error | null): void {
  if (err) throw err;
  settled++;
}

function lastByte(chunks: Buffer[]): number | undefined {
  for (let i = chunks.length - 1; i >= 0; i--) {
    const chunk = chunks[i]!;
    if (chunk.length > 0) return chunk[chunk.length - 1];
  }
  return undefined;
}
