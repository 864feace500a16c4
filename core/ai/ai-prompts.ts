import type { DraftTone } from './ai.types.js';

/**
 * The instructions and material of the subject-line and draft helpers. The material is the
 * team's own (what it sent in the request, or its template), bounded so one request cannot run
 * up a model bill: each part is cut at MATERIAL_CHARS with a note saying so.
 */
export const MATERIAL_CHARS = 30_000;

/** Readable text of an HTML body: what a subject line needs of it (tags, styles and scripts dropped). */
export function textOfHtml(html: string): string {
  return html
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<br\s*\/?>|<\/(p|div|h[1-6]|li|tr)>/gi, '\n')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/gi, ' ')
    .replace(/&amp;/gi, '&')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&quot;/gi, '"')
    .replace(/&#39;/gi, "'")
    .replace(/[ \t]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
}

function bounded(text: string): string {
  return text.length <= MATERIAL_CHARS ? text : `${text.slice(0, MATERIAL_CHARS)}\n[... cut: the rest is not shown]`;
}

function section(title: string, body: string | null | undefined): string | null {
  if (body === undefined || body === null || body.trim() === '') return null;
  return `## ${title}\n${bounded(body.trim())}`;
}

export type SubjectMaterial = {
  subject?: string | null;
  html?: string | null;
  text?: string | null;
  audience?: string | null;
};

export function subjectLinesPrompt(material: SubjectMaterial): { system: string; user: string } {
  const system = [
    'You write subject lines for emails.',
    'Suggest 5 alternative subject lines for the email described below, best first.',
    'Each is one line of at most 80 characters, in the language of the email, true to its content:',
    'no facts, prices, dates or names that the material does not give, no misleading urgency, no spammy capitals or symbols.',
    'Keep any {{PLACEHOLDER}} exactly as written.',
    'Answer with JSON only: {"suggestions": ["..."]}.',
  ].join(' ');
  const parts = [
    section('Current subject', material.subject),
    section('Audience', material.audience),
    section('Text of the email', material.text ?? (material.html ? textOfHtml(material.html) : null)),
  ].filter((part) => part !== null);
  return { system, user: parts.join('\n\n') };
}

const TONES: Record<DraftTone, string> = {
  neutral: 'clear and neutral',
  friendly: 'warm and friendly',
  formal: 'formal and courteous',
};

export type DraftMaterial = { brief: string; tone: DraftTone; existingHtml?: string | null };

export function draftPrompt(material: DraftMaterial): { system: string; user: string } {
  const system = [
    'You write the body of an email from a brief. There is no subject: write only the body.',
    `The tone is ${TONES[material.tone]}.`,
    'html is simple, email-safe HTML (a fragment of headings, paragraphs, lists, links and at most one button-style link; inline styles only; no scripts, forms or external images).',
    'text is the same content as plain text, links written out.',
    'Do not invent facts, prices, dates, names or links the brief does not give; where one is needed, write a {{PLACEHOLDER}} in capitals instead, and keep any {{PLACEHOLDER}} of the material exactly as written.',
    material.existingHtml ? 'Revise the existing HTML below to follow the brief, keeping what still fits.' : '',
    'Answer with JSON only: {"html": "...", "text": "..."}.',
  ]
    .filter(Boolean)
    .join(' ');
  const parts = [section('Brief', material.brief), section('Existing HTML', material.existingHtml)].filter(
    (part) => part !== null,
  );
  return { system, user: parts.join('\n\n') };
}

/** Facts past this size lose their transcripts (the replies stay): one diagnosis, a bounded bill. */
const FACTS_CHARS = 60_000;

export function diagnosisPrompt(facts: Record<string, unknown>): { system: string; user: string } {
  const system = [
    'You are an email deliverability engineer. Diagnose what happened to one email sent through a self-hosted mail appliance, from the facts below:',
    'its event timeline, each delivery attempt with the receiving server’s SMTP reply, the bounce classification and the end of the SMTP transcript,',
    'the sending domain’s DNS checks (SPF, DKIM, DMARC, return-path MX, tracking), block-list rests of the appliance’s sending addresses, and suppression-list flags.',
    'Addresses are replaced by placeholders such as <recipient-1>, <sender> and <address>; the content of the email is not shown.',
    'summary: what happened, in one to three sentences. likely_causes: the likely causes, most likely first, each one sentence grounded in the facts.',
    'next_steps: concrete things the sender can do, most useful first. If the email was delivered normally, say so and give no invented problems.',
    'Answer with JSON only: {"summary": "...", "likely_causes": ["..."], "next_steps": ["..."]}.',
  ].join(' ');
  let user = JSON.stringify(facts, null, 1);
  if (user.length > FACTS_CHARS)
    user = JSON.stringify(facts, (key, value: unknown) => (key === 'transcript' ? undefined : value), 1);
  return { system, user: `Facts (JSON):\n${user.slice(0, FACTS_CHARS)}` };
}
