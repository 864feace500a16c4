import { BRAND_TOKENS, placeholderNames, scanPlaceholders } from './placeholders';
import type { TemplateDetail, TemplateVariable, VariableType } from './template-types';

/**
 * The editor's working copy of a template: every field as the text the person types. A
 * variable's fallback is typed as text and read by its type when saved; its sample value is
 * the editor's own (preview and test send), never saved.
 */
export type VariableRow = { id: number; key: string; type: VariableType; fallback: string; sample: string };

export type Draft = {
  name: string;
  alias: string;
  from: string;
  replyTo: string;
  subject: string;
  html: string;
  text: string;
  variables: VariableRow[];
};

let nextRowId = 1;
export const newRowId = () => nextRowId++;

export function fallbackText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** A sample for the preview when there is no fallback: the key itself reads well ("FIRST_NAME"). */
export function defaultSample(key: string, type: VariableType): string {
  if (type === 'number') return '42';
  if (type === 'boolean') return 'true';
  if (type === 'list') return '["one","two"]';
  if (type === 'object') return '{}';
  return key ? `Sample ${key.toLowerCase().replace(/_/g, ' ')}` : '';
}

export function toDraft(template: TemplateDetail, samples: Record<string, string> = {}): Draft {
  return {
    name: template.name,
    alias: template.alias ?? '',
    from: template.from ?? '',
    replyTo: (template.reply_to ?? []).join(', '),
    subject: template.subject ?? '',
    html: template.html,
    text: template.text ?? '',
    variables: template.variables.map((v) => ({
      id: newRowId(),
      key: v.key,
      type: v.type,
      fallback: fallbackText(v.fallback_value),
      sample: samples[v.key] ?? '',
    })),
  };
}

/** A fallback read by its type; `error` in words when the text is not one. Empty is no fallback. */
export function parseFallback(row: Pick<VariableRow, 'type' | 'fallback'>): { value: unknown; error?: string } {
  const text = row.fallback;
  if (text.trim() === '') return { value: null };
  switch (row.type) {
    case 'string':
      return { value: text };
    case 'number': {
      const value = Number(text);
      return Number.isFinite(value) ? { value } : { value: null, error: 'must be a number, like 30 or 2.5' };
    }
    case 'boolean':
      return text === 'true' || text === 'false'
        ? { value: text === 'true' }
        : { value: null, error: 'must be true or false' };
    case 'object':
    case 'list': {
      try {
        const value: unknown = JSON.parse(text);
        const fits =
          row.type === 'list'
            ? Array.isArray(value)
            : typeof value === 'object' && value !== null && !Array.isArray(value);
        return fits
          ? { value }
          : {
              value: null,
              error:
                row.type === 'list' ? 'must be a JSON list, like ["a","b"]' : 'must be a JSON object, like {"a":1}',
            };
      } catch {
        return { value: null, error: `must be JSON (${row.type === 'list' ? '["a","b"]' : '{"a":1}'})` };
      }
    }
  }
}

export function draftVariables(draft: Draft): TemplateVariable[] {
  return draft.variables.map((row) => ({
    key: row.key.trim(),
    type: row.type,
    fallback_value: parseFallback(row).value,
  }));
}

const orNull = (text: string) => (text.trim() === '' ? null : text);

/** The body of PATCH /templates/:id from a draft: every field the API takes, as it takes it. */
export function toPayload(draft: Draft) {
  const replyTo = draft.replyTo
    .split(',')
    .map((address) => address.trim())
    .filter(Boolean);
  return {
    name: draft.name.trim(),
    alias: orNull(draft.alias.trim()),
    from: orNull(draft.from.trim()),
    reply_to: replyTo.length ? replyTo : null,
    subject: orNull(draft.subject),
    html: draft.html,
    text: orNull(draft.text),
    variables: draftVariables(draft),
  };
}

export type Payload = ReturnType<typeof toPayload>;
const CONTENT = ['from', 'reply_to', 'subject', 'html', 'text', 'variables'] as const;

/**
 * Only the fields that changed: on a published template any content field opens a new draft
 * version, so an untouched one is not sent (a rename alone stays a rename).
 */
export function changedFields(draft: Draft, saved: Draft): Partial<Payload> {
  const now = toPayload(draft);
  const before = toPayload(saved);
  const changes: Partial<Record<keyof Payload, unknown>> = {};
  for (const key of Object.keys(now) as (keyof Payload)[])
    if (JSON.stringify(now[key]) !== JSON.stringify(before[key])) changes[key] = now[key];
  return changes as Partial<Payload>;
}

export const contentChanged = (changes: Partial<Payload>) => CONTENT.some((key) => key in changes);

/** A key's problem, as core's placeholderRefusal would answer it on save (shown while typing). */
export type PlaceholderProblem = { kind: 'undeclared' | 'unused' | 'syntax' | 'brand'; name: string; message: string };

export function placeholderProblems(draft: Draft): PlaceholderProblem[] {
  const problems: PlaceholderProblem[] = [];
  const fields = { subject: draft.subject, html: draft.html, text: draft.text };
  for (const [field, text] of Object.entries(fields))
    for (const flaw of scanPlaceholders(text).flaws)
      problems.push({ kind: 'syntax', name: field, message: `In ${field}: "${flaw.raw}" ${flaw.reason}.` });
  const used = placeholderNames(draft.subject, draft.html, draft.text);
  const declared = new Set(draft.variables.map((row) => row.key.trim()).filter(Boolean));
  for (const name of used) {
    if (name.startsWith('brand.')) {
      if (!(BRAND_TOKENS as readonly string[]).includes(name.slice(6)))
        problems.push({ kind: 'brand', name, message: `{{${name}}} is not a brand token.` });
    } else if (!declared.has(name))
      problems.push({ kind: 'undeclared', name, message: `{{${name}}} is used but not declared.` });
  }
  for (const key of declared)
    if (!used.has(key)) problems.push({ kind: 'unused', name: key, message: `${key} is declared but not used.` });
  return problems;
}

/**
 * The values for each declared key. The preview shows the sample, else the fallback, else a
 * made-up sample (so every placeholder is filled); a test send gives only the samples typed (the
 * appliance applies the fallbacks itself, and refuses a key with neither).
 */
export function sampleValues(draft: Draft, mode: 'preview' | 'send'): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const row of draft.variables) {
    const key = row.key.trim();
    if (!key) continue;
    if (row.sample !== '') values[key] = row.sample;
    else if (mode === 'preview') {
      const fallback = parseFallback(row).value;
      values[key] = fallback !== null && fallback !== undefined ? fallback : defaultSample(key, row.type);
    }
  }
  return values;
}
