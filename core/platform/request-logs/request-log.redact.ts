import { createHash } from 'node:crypto';
import { TOKEN_PATTERN } from '../api-keys/api-key.tokens.js';

/**
 * What a request log may keep of a request body. Stored bodies are measurements, not copies:
 * - a body that names a password, token, secret or key anywhere is dropped whole (null);
 * - a body carrying a credential-shaped string anywhere is dropped whole;
 * - a body nested deeper than MAX_DEPTH levels is dropped whole (the walks below recurse, and no
 *   API body is nested that deep: such a body is refused anyway, and its log entry must not be lost);
 * - what is left, if over MAX_STORED_BYTES as JSON, is kept as { bytes } alone (a request of
 *   900,000 addresses is refused, and its log entry must fit the row and the database's packet);
 * - message content (subject, html, text, base64 content, template variable values, custom
 *   header values) becomes { bytes }, attachments become { filename, size, sha256 }.
 */
const SECRET_NAME =
  /pass(word|wd|phrase)?$|secret|token|api[_-]?key|private[_-]?key|^key$|_key$|credential|authorization/i;
const CONTENT_FIELDS = new Set(['subject', 'html', 'text', 'content']);
const MEASURED_MAPS = new Set(['variables', 'headers']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Deeper than any body the API takes (a template variable's object fallback is the deepest). */
const MAX_DEPTH = 32;

/**
 * Above nearly every body once its content is measured (a batch of 100 sends with a few
 * recipients each is some tens of KB); and small enough that a group commit's multi-row insert
 * of several such entries stays within MariaDB's 16 MB packet (max_allowed_packet).
 */
const MAX_STORED_BYTES = 1024 * 1024;

export function redactRequestBody(body: unknown): Json {
  if (body === undefined || body === null) return null;
  if (nestedDeeperThan(body, MAX_DEPTH)) return null;
  if (namesASecret(body, undefined)) return null;
  const measured = measure(body as Json, undefined);
  const bytes = byteSize(JSON.stringify(measured));
  return bytes > MAX_STORED_BYTES ? { bytes } : measured;
}

/** Whether arrays and objects nest more than `limit` levels; without recursion, for any depth. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (!item || typeof item !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

function namesASecret(value: unknown, parentKey: string | undefined): boolean {
  if (typeof value === 'string') return TOKEN_PATTERN.test(value);
  if (Array.isArray(value)) return value.some((item) => namesASecret(item, parentKey));
  if (value && typeof value === 'object') {
    return Object.entries(value).some(([key, inner]) => {
      // A template variable declares its name in a field called `key`: that names a variable, not a secret.
      const isVariableName = key === 'key' && parentKey === 'variables';
      return (!isVariableName && SECRET_NAME.test(key)) || namesASecret(inner, key);
    });
  }
  return false;
}

function byteSize(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

function measureAttachment(item: Json): Json {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return { bytes: byteSize(JSON.stringify(item)) };
  const content = typeof item.content === 'string' ? Buffer.from(item.content, 'base64') : null;
  return {
    filename: typeof item.filename === 'string' ? item.filename : null,
    size: content ? content.length : null,
    sha256: content ? createHash('sha256').update(content).digest('hex') : null,
  };
}

function measureMap(value: Json): Json {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return measureLeaf(value);
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, measureLeaf(inner)]));
}

function measureLeaf(value: Json): Json {
  if (value === null) return null;
  if (typeof value === 'string') return { bytes: byteSize(value) };
  return { bytes: byteSize(JSON.stringify(value)) };
}

function measure(value: Json, key: string | undefined): Json {
  if (key && CONTENT_FIELDS.has(key) && value !== null && typeof value !== 'object') return measureLeaf(value);
  if (key === 'attachments' && Array.isArray(value)) return value.map(measureAttachment);
  if (key && MEASURED_MAPS.has(key) && value && typeof value === 'object' && !Array.isArray(value))
    return measureMap(value);
  // Items of other arrays are measured by their own fields (e.g. template variable declarations).
  if (Array.isArray(value)) return value.map((item) => measure(item, key && CONTENT_FIELDS.has(key) ? key : undefined));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([inner, child]) => [inner, measure(child, inner)]));
  }
  return value;
}
