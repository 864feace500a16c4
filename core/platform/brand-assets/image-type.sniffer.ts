export type ImageType = 'png' | 'jpeg' | 'svg';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The type is read from the bytes, never from a name or a declared type. SVG is text whose
 * first element (after an optional BOM, XML declaration, comments and whitespace) is <svg.
 */
export function sniffImageType(bytes: Buffer): ImageType | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return looksLikeSvg(bytes) ? 'svg' : undefined;
}

function looksLikeSvg(bytes: Buffer): boolean {
  let text = bytes.subarray(0, 4096).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // Skip the prolog: XML declaration, comments, DOCTYPE (refused later, but still an SVG).
  const prolog = /^(\s+|<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>)*/i;
  const rest = text.replace(prolog, '');
  return /^<(?:[A-Za-z_][\w.-]*:)?svg[\s>/]/i.test(rest);
}
