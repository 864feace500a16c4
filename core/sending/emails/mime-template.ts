import type MimeNode from 'nodemailer/lib/mime-node';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs';
import { withinLineLimits } from './header-folding.js';
import { encodeTextBody, renderMimeTree } from './mime-render.js';
import { address, assertCarriable, compileMime, type ComposeInput } from './mime.js';

/** The parts of a MimeNode the template restores between recipients (left out of its type declarations). */
type Header = { key: string; value: unknown };
type NodeInternals = MimeNode & {
  _headers: Header[];
  childNodes: NodeInternals[];
  contentType?: string;
  boundary?: string | false;
  normalizeHeaderKey?: unknown;
  setContent(content: string): void;
  encodeHeaderValue(key: string, value: unknown): string;
  _getTextEncoding(value: string): 'Q' | 'B';
};

/** One header field of a node's block, as the template's render wrote it. */
type Field = { name: string; line: string };
/** The fields a recipient changes on the root, by lower-cased name. */
const PERSONAL = new Set(['to', 'subject', 'message-id', 'date']);
/** The fields a body's text changes (its charset, its transfer encoding). */
const CONTENT = new Set(['content-type', 'content-transfer-encoding']);
const NOT_PLAIN = /[\x00-\x08\x0b\x0c\x0e-\x1f\u0080-\uFFFF]/;
const LONG_LINE = /^.{77,}/m;
const LATIN = /[A-Za-z]/;
const EIGHT_BIT = /[\u0080-\uFFFF]/;

/**
 * One message composed once and rendered again for many recipients (a broadcast's fan-out):
 * nodemailer's composer and its compile (the address parsing, the node tree, the boundary) run
 * once, and the template's header blocks are kept field by field. Each recipient then costs its
 * personal fields (To, Subject, Message-ID, Date and the custom headers such as
 * List-Unsubscribe), each encoded and folded by nodemailer's own encodeHeaderValue and
 * foldLines as buildHeaders does it (RFC 2047 for a non-ASCII Subject), and its bodies: the
 * transfer encoding (7bit, quoted-printable or base64) and charset chosen from its own text as
 * getTransferEncoding chooses them, the body's content fields learnt from the tree once per
 * such choice, the text encoded by mime-render.ts's encoders. Where that assembly does not
 * apply, the recipient's values are set on the compiled tree and rendered by mime-render.ts.
 * Either way the bytes are composeMime's (test/campaigns/broadcast-mime.test.ts holds them to
 * it); only the multipart boundary is the template's (random once per template instead of
 * once per message).
 *
 * `render` returns null where it would not be the same message as a full composition, and the
 * caller composes that one fully: a message of another shape (other from, reply-to, cc, header
 * names, which bodies or subject are present, attachments), or a body that contains the
 * boundary.
 */
export class MimeTemplate {
  /** Messages rendered by the template's own assembly, and by a render of the compiled tree. */
  readonly counts = { assembled: 0, tree: 0 };
  private plan: Plan | null = null;

  private constructor(
    private readonly root: NodeInternals,
    private readonly nodes: Array<{ node: NodeInternals; pristine: Header[] }>,
    private readonly bodies: Array<{ node: NodeInternals; field: 'html' | 'text' }>,
    private readonly shape: string,
    private boundary: string | null,
  ) {}

  /** The template of `input`'s shape, or null for a shape it does not cover (attachments, other parts). */
  static of(input: ComposeInput): MimeTemplate | null {
    if (input.attachments.length > 0) return null;
    // Two custom headers of one name (in any case) would be one after setHeader: not covered.
    const names = Object.keys(input.headers).map((key) => key.toLowerCase());
    if (new Set(names).size !== names.length) return null;
    const root = compileMime(input) as NodeInternals;
    const nodes: Array<{ node: NodeInternals; pristine: Header[] }> = [];
    const bodies: Array<{ node: NodeInternals; field: 'html' | 'text' }> = [];
    const walk = (node: NodeInternals): boolean => {
      // Before any buildHeaders: it writes Content-Transfer-Encoding (and the root's Date,
      // MIME-Version) into the list, and a later recipient's choice must start from scratch.
      nodes.push({ node, pristine: node._headers.map((h) => ({ ...h })) });
      if (node.childNodes.length > 0) return node.childNodes.every(walk);
      const type = String(node.getHeader('Content-Type') ?? '').toLowerCase();
      if (type.startsWith('text/html')) bodies.push({ node, field: 'html' });
      else if (type.startsWith('text/plain')) bodies.push({ node, field: 'text' });
      else return false;
      return true;
    };
    if (!walk(root)) return null;
    // The body parts the composer made must be exactly the bodies given (an empty one makes none).
    const expected = (input.html ? 1 : 0) + (input.text ? 1 : 0);
    if (bodies.length !== expected) return null;
    const template = new MimeTemplate(root, nodes, bodies, shapeOf(input), null);
    // One render fixes the boundary (nodemailer draws it at the first buildHeaders).
    if (!template.renderTree(input)) return null;
    template.boundary = root.boundary || null;
    template.plan = template.planOf(input);
    return template;
  }

  /**
   * `input` rendered on the template: the bytes composeMime(input) gives (but the boundary), or
   * null where the caller must compose it fully. Throws composeMime's refusal for a message
   * with a line that cannot be carried.
   */
  render(input: ComposeInput, shape = shapeOf(input)): Buffer | null {
    if (shape !== this.shape) return null;
    if (this.boundary !== null) {
      for (const { field } of this.bodies) if (input[field]?.includes(this.boundary)) return null;
    }
    let mime = this.plan ? this.assemble(this.plan, input) : null;
    if (mime) this.counts.assembled++;
    else {
      mime = this.renderTree(input);
      if (!mime) return null;
      this.counts.tree++;
    }
    assertCarriable(mime);
    return mime;
  }

  /** The compiled tree with the recipient's values, rendered by mime-render.ts (nodemailer's buildHeaders). */
  private renderTree(input: ComposeInput): Buffer | null {
    for (const { node, pristine } of this.nodes) node._headers = pristine.map((h) => ({ ...h }));
    // In place of the composer's values: setHeader keeps each field where the composer put it.
    const root = this.root;
    for (const [key, value] of Object.entries(input.headers)) root.setHeader(key, value);
    root.setHeader('To', input.to.map(address));
    if (input.subject) root.setHeader('Subject', input.subject);
    root.setHeader('Message-ID', input.messageId);
    root.setHeader('Date', input.date);
    for (const { node, field } of this.bodies) node.setContent(input[field]!);
    return renderMimeTree(root);
  }

  /**
   * The template's header blocks split into fields, read right after its render: the fields
   * that stay, and where the personal and content-dependent ones go. Null (every message
   * through the tree) for a message this assembly does not cover: a nested multipart, a header
   * key normalizer, custom headers named like the composer's own, a personal field missing.
   */
  private planOf(input: ComposeInput): Plan | null {
    const root = this.root;
    if (typeof root.normalizeHeaderKey === 'function') return null;
    const custom = Object.keys(input.headers).map((key) => key.toLowerCase());
    const own = ['from', 'sender', 'cc', 'bcc', 'reply-to', 'mime-version', ...PERSONAL, ...CONTENT];
    if (custom.some((name) => own.includes(name))) return null;
    const personal = new Set([...PERSONAL, ...custom]);
    const multipart = root.childNodes.length > 0;
    if (multipart && (root.content || this.boundary === null)) return null;
    if (multipart && root.childNodes.some((child) => child.childNodes.length > 0)) return null;
    const rootFields = fieldsOf(root);
    if (!rootFields) return null;
    for (const name of personal) if (rootFields.filter((f) => f.name === name).length !== 1) return null;
    const leaves: Leaf[] = [];
    for (const { node, field } of this.bodies) {
      const fields = node === root ? rootFields : fieldsOf(node);
      if (!fields) return null;
      leaves.push({ node, field, fields, contentType: node.contentType ?? 'text/plain', byEncoding: new Map() });
    }
    return { rootFields, personal, multipart, leaves };
  }

  /**
   * The message assembled from the template's fields and the recipient's: each personal field
   * encoded and folded as buildHeaders does it (nodemailer's encodeHeaderValue and foldLines),
   * each body's transfer encoding chosen as getTransferEncoding chooses it and its content
   * fields learnt from the tree once per choice, the body encoded by mime-render's encoders.
   * Null where a personal value comes out empty (the tree leaves the field out).
   */
  private assemble(plan: Plan, input: ComposeInput): Buffer | null {
    const root = this.root;
    const values = new Map<string, unknown>([
      ['to', input.to.map(address)],
      ['subject', input.subject],
      ['message-id', input.messageId],
      ['date', input.date],
    ]);
    for (const [key, value] of Object.entries(input.headers)) values.set(key.toLowerCase(), value);
    const lines = new Map<string, string>();
    for (const field of plan.rootFields) {
      if (!plan.personal.has(field.name)) continue;
      const key = field.line.slice(0, field.line.indexOf(':'));
      const encoded = String(root.encodeHeaderValue(key, values.get(field.name)) ?? '');
      if (!encoded.trim()) return null;
      lines.set(field.name, mimeFuncs.foldLines(`${key}: ${encoded}`, 76));
    }
    const parts: Array<{ block: string; body: string }> = [];
    for (const leaf of plan.leaves) {
      const text = input[leaf.field]!;
      const plain = !NOT_PLAIN.test(text);
      const transferEncoding =
        plain && text.length <= 128 * 1024 && !LONG_LINE.test(text)
          ? '7bit'
          : (plain ? LATIN.test(text) : leaf.node._getTextEncoding(text) === 'Q')
            ? 'quoted-printable'
            : 'base64';
      const choice = `${transferEncoding}|${!plain && EIGHT_BIT.test(text)}`;
      const content = leaf.byEncoding.get(choice) ?? this.contentFields(leaf, text);
      if (!content) return null;
      leaf.byEncoding.set(choice, content);
      const own = leaf.node === root ? new Map([...lines, ...content]) : content;
      parts.push({ block: blockOf(leaf.fields, own), body: encodeTextBody(transferEncoding, leaf.contentType, text) });
    }
    let out: string;
    if (plan.multipart) {
      out = `${blockOf(plan.rootFields, lines)}\r\n\r\n`;
      parts.forEach(({ block, body }, i) => {
        out += `${i > 0 ? '\r\n' : ''}--${this.boundary}\r\n${block}\r\n\r\n${body}`;
      });
      out += `\r\n--${this.boundary}--\r\n`;
    } else {
      const { block, body } = parts[0]!;
      out = `${block}\r\n\r\n${body}`;
      // As renderMimeTree ends a message (MimeNode's LastNewline stage).
      if (out.endsWith('\r')) out += '\n';
      else if (!out.endsWith('\n')) out += '\r\n';
    }
    return Buffer.from(out);
  }

  /** A body's Content-Type and Content-Transfer-Encoding fields for a text like `text`, from the tree. */
  private contentFields(leaf: Leaf, text: string): Map<string, string> | null {
    const pristine = this.nodes.find((n) => n.node === leaf.node)!.pristine;
    leaf.node._headers = pristine.map((h) => ({ ...h }));
    leaf.node.setContent(text);
    const fields = fieldsOf(leaf.node);
    if (!fields) return null;
    const content = new Map(fields.filter((f) => CONTENT.has(f.name)).map((f) => [f.name, f.line]));
    for (const f of leaf.fields) if (CONTENT.has(f.name) && !content.has(f.name)) return null;
    return content;
  }
}

type Leaf = {
  node: NodeInternals;
  field: 'html' | 'text';
  /** The node's fields in the template's render. */
  fields: Field[];
  contentType: string;
  /** Content fields by transfer encoding and charset (at most six). */
  byEncoding: Map<string, Map<string, string>>;
};
type Plan = { rootFields: Field[]; personal: Set<string>; multipart: boolean; leaves: Leaf[] };

/** A node's header block (as renderNode writes it) split into fields; null if a name repeats. */
function fieldsOf(node: NodeInternals): Field[] | null {
  const fields: Field[] = [];
  for (const line of withinLineLimits(node.buildHeaders()).split('\r\n')) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && fields.length > 0)
      fields[fields.length - 1]!.line += `\r\n${line}`;
    else fields.push({ name: line.slice(0, line.indexOf(':')).toLowerCase(), line });
  }
  return new Set(fields.map((f) => f.name)).size === fields.length ? fields : null;
}

/** A header block: each field's own line where `lines` has one, else the template's. */
function blockOf(fields: Field[], lines: Map<string, string>): string {
  return withinLineLimits(fields.map((f) => lines.get(f.name) ?? f.line).join('\r\n'));
}

/**
 * What a template's messages must share: everything the composer is given except the personal
 * values. Header names are kept in order (their positions in the message), not their values.
 */
export function shapeOf(input: ComposeInput): string {
  const mailbox = (m: { name: string | null; address: string }) => [m.name ?? '', m.address];
  return JSON.stringify([
    mailbox(input.from),
    input.cc.map(mailbox),
    input.replyTo.map(mailbox),
    input.to.length,
    Boolean(input.subject),
    Boolean(input.html),
    Boolean(input.text),
    Object.keys(input.headers),
    input.attachments.length,
  ]);
}
