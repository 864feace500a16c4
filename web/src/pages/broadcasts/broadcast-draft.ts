import type { Broadcast } from './broadcast-types';

/** What the editor holds: the draft's fields as the form edits them (reply-to as one line). */
export type Draft = {
  name: string;
  from: string;
  subject: string;
  preview_text: string;
  reply_to: string;
  segment_id: string;
  html: string;
  text: string;
};

export function draftOf(b: Broadcast): Draft {
  return {
    name: b.name ?? '',
    from: b.from ?? '',
    subject: b.subject ?? '',
    preview_text: b.preview_text ?? '',
    reply_to: (b.reply_to ?? []).join(', '),
    segment_id: b.segment_id ?? b.audience_id ?? '',
    html: b.html ?? '',
    text: b.text ?? '',
  };
}

/**
 * The PATCH body: only the fields that differ from the saved draft (the API changes only what
 * is present). Empty optional fields are cleared with null; the segment cannot be unset.
 */
export function changesOf(saved: Draft, draft: Draft): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const orNull = (value: string) => (value.trim() === '' ? null : value);
  if (draft.name !== saved.name) body.name = orNull(draft.name);
  if (draft.from !== saved.from) body.from = draft.from.trim();
  if (draft.subject !== saved.subject) body.subject = draft.subject;
  if (draft.preview_text !== saved.preview_text) body.preview_text = orNull(draft.preview_text);
  if (draft.reply_to !== saved.reply_to) {
    const list = draft.reply_to
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    body.reply_to = list.length > 0 ? list : null;
  }
  if (draft.segment_id !== saved.segment_id && draft.segment_id) body.segment_id = draft.segment_id;
  if (draft.html !== saved.html) body.html = orNull(draft.html);
  if (draft.text !== saved.text) body.text = orNull(draft.text);
  return body;
}
