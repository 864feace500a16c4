/**
 * Folding of the DKIM-Signature field. RFC 5322 allows 998 octets a line; receivers and
 * filters that re-wrap long lines are common enough that we keep to 76, breaking only where
 * the DKIM grammar allows FWS: between tags, after a ':' in h=, anywhere inside b=.
 */

export const MAX_LINE = 76;
const FIELD_NAME = 'DKIM-Signature:';
const B_LINE_START = ' b=';

export type DkimTag = readonly [name: string, value: string];

/** The unbreakable pieces of one tag: h= may break after each ':', other tags not at all. */
function tagAtoms(name: string, value: string): string[] {
  const text = `${name}=${value};`;
  return name === 'h' ? text.split(/(?<=:)/) : [text];
}

/**
 * The field with every tag but b=, folded, ending in a line ' b=' that the signature is later
 * appended to. b= goes last and on a line of its own so the text signed (b= empty) and the
 * text sent differ only after 'b=', which is the part verifiers strip before hashing.
 */
export function foldSignatureTags(tags: readonly DkimTag[]): string {
  const lines: string[] = [];
  let line = FIELD_NAME;
  for (const [name, value] of tags) {
    tagAtoms(name, value).forEach((atom, index) => {
      const separator = index === 0 ? ' ' : '';
      if (line.length + separator.length + atom.length > MAX_LINE) {
        lines.push(line);
        line = ` ${atom}`;
      } else {
        line += separator + atom;
      }
    });
  }
  lines.push(line, B_LINE_START);
  return lines.join('\r\n');
}

/** Appends the base64 signature to the ' b=' line, wrapping at MAX_LINE; ends with CRLF. */
export function appendSignature(folded: string, signature: string): string {
  const first = MAX_LINE - B_LINE_START.length;
  const chunks = [signature.slice(0, first)];
  for (let at = first; at < signature.length; at += MAX_LINE - 1) chunks.push(signature.slice(at, at + MAX_LINE - 1));
  return `${folded}${chunks.join('\r\n ')}\r\n`;
}
