/**
 * Stripe's request encoding, decoded: `application/x-www-form-urlencoded` with bracket notation
 * (`line_items[0][price]=price_1`, `metadata[team_id]=t`, `expand[0]=x` or `expand[]=x`), the
 * same in a POST body and a GET query string. Values stay strings, as Stripe receives them; an
 * empty value is how the SDK sends `null` (unset). Written here rather than importing a query
 * string package the project does not depend on.
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type Form = { [key: string]: FormValue };

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** `a[b][0][]` -> ['a', 'b', '0', '']. */
function keyPath(key: string): string[] {
  const open = key.indexOf('[');
  if (open <= 0) return [key];
  const path = [key.slice(0, open)];
  for (const match of key.slice(open).matchAll(/\[([^\]]*)\]/g)) path.push(match[1] ?? '');
  return path;
}

type Node = { [key: string]: Node | string };

/** Objects whose keys are all array indexes become arrays, in index order. */
function finish(node: Node | string): FormValue {
  if (typeof node === 'string') return node;
  const keys = Object.keys(node);
  const values = keys.map((key) => finish(node[key] as Node | string));
  if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
    return keys
      .map((key, i) => [Number(key), values[i] as FormValue] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([, value]) => value);
  }
  const out: Form = {};
  keys.forEach((key, i) => (out[key] = values[i] as FormValue));
  return out;
}

/** Decodes a form body or query string (without the leading `?`). */
export function decodeForm(text: string): Form {
  const root: Node = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const path = keyPath(rawKey);
    if (path.some((segment) => FORBIDDEN.has(segment))) continue;
    let node = root;
    for (let i = 0; i < path.length; i++) {
      let segment = path[i] as string;
      // `[]` appends: the next free index at this level.
      if (segment === '') segment = String(Object.keys(node).length);
      if (i === path.length - 1) {
        node[segment] = value;
      } else {
        const next = node[segment];
        if (typeof next !== 'object') node[segment] = {};
        node = node[segment] as Node;
      }
    }
  }
  return finish(root) as Form;
}

/** Reading helpers: a form value as the shape a parameter expects, or undefined. */
export function str(value: FormValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function obj(value: FormValue | undefined): Form | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

export function arr(value: FormValue | undefined): FormValue[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

/** Metadata as Stripe stores it: string values, an empty value deletes the key. */
export function mergeMetadata(current: Record<string, string>, update: FormValue | undefined): Record<string, string> {
  if (update === undefined) return current;
  if (update === '') return {};
  const next = { ...current };
  for (const [key, value] of Object.entries(obj(update) ?? {})) {
    if (value === '') delete next[key];
    else if (typeof value === 'string') next[key] = value;
  }
  return next;
}
