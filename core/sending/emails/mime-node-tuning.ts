import MimeNode from 'nodemailer/lib/mime-node';

type Proto = {
  _normalizeHeaderKey: (this: MimeNode, key: unknown) => string;
  createChild: (this: MimeNode, contentType?: unknown, options?: unknown) => MimeNode;
  tunedForSendPath?: true;
};
const proto = MimeNode.prototype as unknown as Proto;

/** Distinct header names remembered; custom names come from callers, so the table is bounded. */
const MAX_NAMES = 2048;

/**
 * Two costs of nodemailer's MimeNode that a send pays for nothing, removed without changing a
 * byte of output (test/core/sending/emails/mime-render.test.ts compares against nodemailer's build(), and
 * mime-node-tuning.test.ts checks each change on its own). Installed once on MimeNode, which in
 * this codebase only the send path's composer uses.
 *
 * - Header names are normalized (three regular expressions, one with a callback per match) on
 *   every setHeader, getHeader and header encoding: some 30 times per message, about a fifth of
 *   composing one. The result depends on the name alone, so answers are remembered.
 * - Every child node draws 8 random bytes from the system (crypto.randomBytes, ~3 us each) for
 *   a boundary base it never uses: boundaries are made from the root node's base. A child
 *   created without one gets its root's.
 */
export function tuneMimeNode(): void {
  if (proto.tunedForSendPath) return;
  proto.tunedForSendPath = true;

  const normalize = proto._normalizeHeaderKey;
  const names = new Map<string, string>();
  proto._normalizeHeaderKey = function (this: MimeNode, key: unknown): string {
    if (typeof key !== 'string') return normalize.call(this, key);
    let normalized = names.get(key);
    if (normalized === undefined) {
      normalized = normalize.call(this, key);
      if (names.size < MAX_NAMES) names.set(key, normalized);
    }
    return normalized;
  };

  const createChild = proto.createChild;
  proto.createChild = function (this: MimeNode, contentType?: unknown, options?: unknown): MimeNode {
    // createChild(options) is also a valid call: the options then come first.
    if (options === undefined && contentType !== null && typeof contentType === 'object') return createChild.call(this, withBase(this, contentType));
    return createChild.call(this, contentType, withBase(this, options));
  };
}

function withBase(parent: MimeNode, options: unknown): unknown {
  const given = (options ?? {}) as { baseBoundary?: string };
  if (given.baseBoundary) return options;
  // A copy, the caller's options stay untouched. Object.assign: about 3x cheaper here than a
  // spread, and an object made with the options as its prototype is slower than either (V8
  // reshapes every object that becomes a prototype).
  const extended = Object.assign({}, given);
  extended.baseBoundary = parent.rootNode.baseBoundary;
  return extended;
}
