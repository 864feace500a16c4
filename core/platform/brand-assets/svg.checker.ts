import { MAX_SVG_BYTES, refuse, type CheckedImage, type ImageCheck } from './brand-asset.types.js';
import { tokenizeSvg, type SvgToken } from './svg.tokenizer.js';

/**
 * An SVG logo is shown inside e-mail and on pages: it may not run script, link anywhere,
 * animate, or pull anything from outside the file. Each kind of problem is reported once; a
 * file with none is stored exactly as sent.
 */
const INVALID = 'file is not a valid SVG image';
const MESSAGES = {
  declaration: 'DOCTYPE and ENTITY declarations are not allowed',
  script: 'scripts are not allowed (<script> elements, event handler attributes, javascript: URLs)',
  link: 'links are not allowed (<a> elements and href attributes pointing outside the file)',
  animation: 'animation is not allowed (<animate>, <set> and similar elements, CSS animations)',
  external:
    'external references are not allowed (outside URLs, url() and @import, <foreignObject>, embedded documents)',
  data: 'data: URLs are not allowed',
} as const;

const ANIMATION = new Set(['animate', 'animatemotion', 'animatetransform', 'animatecolor', 'set', 'discard']);
const EMBEDDING = new Set(['foreignobject', 'iframe', 'embed', 'object', 'audio', 'video']);
const REFERENCING = new Set([
  'image',
  'use',
  'feimage',
  'tref',
  'textpath',
  'mpath',
  'pattern',
  'lineargradient',
  'radialgradient',
  'filter',
]);

const localName = (name: string) => name.slice(name.lastIndexOf(':') + 1).toLowerCase();
const isFragment = (value: string) => value.trim().startsWith('#');

/** Problems in CSS text (a <style> element or a style attribute). */
function cssProblems(css: string): string[] {
  const found: string[] = [];
  const squashed = css.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\\/g, '');
  if (/@import/i.test(squashed)) found.push(MESSAGES.external);
  for (const match of squashed.matchAll(/url\(\s*(['"]?)([^)'"]*)\1\s*\)/gi))
    if (!isFragment(match[2]!)) found.push(MESSAGES.external);
  if (/@(-\w+-)?keyframes|(^|[\s;{])animation(-name)?\s*:/i.test(squashed)) found.push(MESSAGES.animation);
  if (/expression\s*\(|javascript\s*:|behaviou?r\s*:|-moz-binding/i.test(squashed)) found.push(MESSAGES.script);
  return found;
}

function attributeProblems(element: string, name: string, value: string): string[] {
  const attr = localName(name);
  const compact = value.replace(/[\s\u0000-\u001f]+/g, '').toLowerCase();
  const found: string[] = [];
  if (attr.startsWith('on')) found.push(MESSAGES.script);
  if (compact.includes('javascript:') || compact.includes('vbscript:')) found.push(MESSAGES.script);
  if (compact.startsWith('data:')) found.push(MESSAGES.data);
  if (attr === 'href' || attr === 'src') {
    if (!isFragment(value))
      found.push(element === 'a' ? MESSAGES.link : REFERENCING.has(element) ? MESSAGES.external : MESSAGES.link);
  }
  if (attr === 'style') found.push(...cssProblems(value));
  else if (/url\(/i.test(value)) found.push(...cssProblems(`x:${value}`).filter((m) => m === MESSAGES.external));
  return found;
}

function elementProblems(name: string): string[] {
  if (name === 'script') return [MESSAGES.script];
  if (name === 'a') return [MESSAGES.link];
  if (ANIMATION.has(name)) return [MESSAGES.animation];
  if (EMBEDDING.has(name)) return [MESSAGES.external];
  return [];
}

/** Walks the tokens: nesting must balance and the one root must be <svg>. */
function structureAndProblems(
  tokens: SvgToken[],
): { problems: string[]; root?: Extract<SvgToken, { kind: 'open' }> } | undefined {
  const problems: string[] = [];
  const stack: string[] = [];
  let root: Extract<SvgToken, { kind: 'open' }> | undefined;
  for (const token of tokens) {
    if (token.kind === 'declaration') problems.push(MESSAGES.declaration);
    else if (token.kind === 'instruction' && token.target !== 'xml') problems.push(MESSAGES.external);
    else if (token.kind === 'text') {
      if (stack.length === 0 && token.text.trim()) return undefined;
      if (stack[stack.length - 1] === 'style') problems.push(...cssProblems(token.text));
    } else if (token.kind === 'open') {
      if (stack.length === 0 && root) return undefined;
      const name = localName(token.name);
      root ??= token;
      problems.push(...elementProblems(name));
      for (const attribute of token.attributes)
        problems.push(...attributeProblems(name, attribute.name, attribute.value));
      if (!token.selfClosing) stack.push(name);
    } else if (token.kind === 'close') {
      if (stack.pop() !== localName(token.name)) return undefined;
    }
  }
  if (stack.length > 0 || !root || localName(root.name) !== 'svg') return undefined;
  return { problems, root };
}

/** width/height attributes in px (or unitless), else the viewBox size. */
function dimensions(root: Extract<SvgToken, { kind: 'open' }>): { width: number | null; height: number | null } {
  const attr = (n: string) => root.attributes.find((a) => a.name.toLowerCase() === n)?.value.trim();
  const px = (value: string | undefined) => {
    const match = value ? /^(\d+(?:\.\d+)?)(px)?$/.exec(value) : null;
    return match ? Math.round(Number(match[1])) : null;
  };
  const box = attr('viewbox')
    ?.split(/[\s,]+/)
    .map(Number);
  const fromBox =
    box && box.length === 4 && box.every(Number.isFinite)
      ? { width: Math.round(box[2]!), height: Math.round(box[3]!) }
      : null;
  return { width: px(attr('width')) ?? fromBox?.width ?? null, height: px(attr('height')) ?? fromBox?.height ?? null };
}

export function checkSvg(bytes: Buffer): ImageCheck<CheckedImage> {
  if (bytes.length > MAX_SVG_BYTES) return refuse(`SVG file is larger than ${MAX_SVG_BYTES / 1024} KB`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse(INVALID);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const tokens = tokenizeSvg(text);
  const checked = tokens.ok ? structureAndProblems(tokens.tokens) : undefined;
  if (!checked || !checked.root) return refuse(INVALID);
  if (checked.problems.length > 0) return refuse(...checked.problems);
  return { ok: true, value: { bytes, ...dimensions(checked.root) } };
}
