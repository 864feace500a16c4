import type { Payload } from './template-draft';
import type { TemplateVariable } from './template-types';

/** What the diff compares: a version's content, from the API or from the editor's working copy. */
export type VersionContent = Pick<Payload, 'from' | 'reply_to' | 'subject' | 'html' | 'text' | 'variables'>;

/** A template or a version as the API answers it (both carry the content fields). */
type ApiContent = {
  from: string | null;
  reply_to: string[] | null;
  subject: string | null;
  html: string;
  text: string | null;
  variables: TemplateVariable[];
};

export const contentOf = (version: ApiContent): VersionContent => ({
  from: version.from,
  // The editor sends an empty list as null: the same value must not show as a change.
  reply_to: version.reply_to && version.reply_to.length ? version.reply_to : null,
  subject: version.subject,
  html: version.html,
  text: version.text,
  variables: version.variables,
});

/** The version as lines per part, the way the diff compares them. */
export function versionParts(content: VersionContent | null): { settings: string; html: string; text: string } {
  if (!content) return { settings: '', html: '', text: '' };
  const settings = [
    `Subject: ${content.subject ?? '(none)'}`,
    `From: ${content.from ?? '(none)'}`,
    `Reply-to: ${content.reply_to?.join(', ') ?? '(none)'}`,
    ...content.variables.map(
      (v) =>
        `Variable ${v.key}: ${v.type}, ${v.fallback_value === null || v.fallback_value === undefined ? 'no fallback' : `fallback ${JSON.stringify(v.fallback_value)}`}`,
    ),
  ].join('\n');
  return { settings, html: content.html, text: content.text ?? '' };
}
