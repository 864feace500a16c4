import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { SelectField, TextArea, TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { changesOf, draftOf, type Draft } from './broadcast-draft';
import { BroadcastPreview } from './broadcast-preview';
import type { Broadcast } from './broadcast-types';
import { errorFor } from './field-errors';
import { insertAt } from './merge-variables';
import { useSegments } from './use-audience';
import { VariablesPanel } from './variables-panel';

type Target = 'subject' | 'html';

/**
 * A draft's editor: every field of the broadcast, the merge variables to insert, and the live
 * preview for a chosen contact of what is typed now. Save writes the changed fields (PATCH);
 * the parent is told whether unsaved changes remain (the checklist and send read the saved draft).
 */
export function BroadcastEditor({ broadcast, onDirty }: { broadcast: Broadcast; onDirty: (dirty: boolean) => void }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const saved = draftOf(broadcast);
  const [draft, setDraft] = useState<Draft>(saved);
  const [target, setTarget] = useState<Target>('html');
  // The fields as last focused, for the caret an insert goes to.
  const subjectRef = useRef<HTMLInputElement | null>(null);
  const htmlRef = useRef<HTMLTextAreaElement | null>(null);
  const segments = useSegments();
  const headingId = useId();
  const changes = changesOf(saved, draft);
  const dirty = Object.keys(changes).length > 0;
  useEffect(() => onDirty(dirty), [dirty, onDirty]);
  const save = useMutation({
    mutationFn: () => api.patch(`/broadcasts/${broadcast.id}`, changes),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['/broadcasts', broadcast.id] });
      toast('Draft saved');
    },
  });
  const set = (field: keyof Draft) => (event: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [field]: event.target.value }));
  /** Puts a placeholder at the caret of the last focused field, then gives it the focus back. */
  const insert = (text: string) => {
    const element = target === 'subject' ? subjectRef.current : htmlRef.current;
    const current = draft[target];
    const start = element?.selectionStart ?? current.length;
    const end = element?.selectionEnd ?? current.length;
    const next = insertAt(current, text, start, end);
    setDraft((d) => ({ ...d, [target]: next.text }));
    requestAnimationFrame(() => {
      element?.focus();
      element?.setSelectionRange(next.caret, next.caret);
    });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <div className="broadcast-editor">
      <Card title="Draft" id={`${headingId}-draft`}>
        <form className="stack" aria-label="Broadcast draft" onSubmit={submit}>
          <TextField label="Name" value={draft.name} onChange={set('name')} error={errorFor(save.error, 'name')} />
          <SelectField
            label="Segment"
            value={draft.segment_id}
            onChange={set('segment_id')}
            error={errorFor(save.error, 'segment_id')}
            hint="Its subscribed members receive the broadcast."
            options={[
              { value: '', label: 'Choose a segment' },
              ...(segments.data?.data ?? []).map((s) => ({ value: s.id, label: s.name })),
            ]}
          />
          <div className="grid-2">
            <TextField
              label="From"
              value={draft.from}
              onChange={set('from')}
              error={errorFor(save.error, 'from')}
              hint="Name <address> on a verified domain."
            />
            <TextField
              label="Reply-to"
              value={draft.reply_to}
              onChange={set('reply_to')}
              error={errorFor(save.error, 'reply_to')}
              hint="Addresses separated by commas (optional)."
            />
          </div>
          <TextField
            label="Subject"
            value={draft.subject}
            onChange={set('subject')}
            onFocus={(event) => {
              subjectRef.current = event.currentTarget;
              setTarget('subject');
            }}
            error={errorFor(save.error, 'subject')}
          />
          <TextField
            label="Preview text"
            value={draft.preview_text}
            onChange={set('preview_text')}
            error={errorFor(save.error, 'preview_text')}
            hint="The line inboxes show after the subject."
          />
          <TextArea
            label="HTML"
            rows={14}
            value={draft.html}
            onChange={set('html')}
            onFocus={(event) => {
              htmlRef.current = event.currentTarget;
              setTarget('html');
            }}
            error={errorFor(save.error, 'html')}
            hint="Without {{{UNSUBSCRIBE_URL}}} or {{{PREFERENCES_URL}}}, a footer with an unsubscribe link and your postal address is added."
          />
          <TextArea
            label="Plain text (optional)"
            rows={5}
            value={draft.text}
            onChange={set('text')}
            error={errorFor(save.error, 'text')}
          />
          <ErrorMessage error={save.error} />
          <div className="row">
            <Button type="submit" variant="primary" busy={save.isPending} disabled={!dirty}>
              Save draft
            </Button>
            <Button disabled={!dirty} onClick={() => setDraft(saved)}>
              Discard changes
            </Button>
            <span className="muted" role="status">
              {dirty ? 'Unsaved changes' : 'All changes saved'}
            </span>
          </div>
        </form>
        <VariablesPanel onInsert={insert} target={target === 'subject' ? 'subject' : 'HTML'} />
      </Card>
      <Card title="Live preview" id={`${headingId}-preview`}>
        <BroadcastPreview broadcastId={broadcast.id} draft={draft} />
      </Card>
    </div>
  );
}
