import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { AiCreditsNote } from '../ai/ai-credits';
import { TONES, type AiDraft, type Tone } from '../ai/ai-types';
import { Button } from '../../ui/button';
import { Dialog } from '../../ui/dialog';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField, TextArea } from '../../ui/field';
import { SandboxedHtml } from '../../ui/sandboxed-html';

const BRIEF_MAX = 2000;

/**
 * Writes the body from a brief (POST /ai/draft), starting from the HTML being edited when there
 * is some. The answer is shown first; "Use this draft" replaces the editor's HTML and text.
 * Nothing is saved or sent by the model's answer itself.
 */
export function AiDraftDialog({
  open,
  onClose,
  existingHtml,
  onUse,
}: {
  open: boolean;
  onClose: () => void;
  existingHtml: string;
  onUse: (draft: { html: string; text: string }) => void;
}) {
  const [brief, setBrief] = useState('');
  const [tone, setTone] = useState<Tone>('neutral');
  const write = useMutation({
    mutationFn: () =>
      api.post<AiDraft>('/ai/draft', {
        brief,
        tone,
        ...(existingHtml.trim() ? { existing_html: existingHtml } : {}),
      }),
  });
  const result = write.data;
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Draft with AI"
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          {result ? (
            <Button
              variant="primary"
              onClick={() => {
                onUse({ html: result.html, text: result.text });
                onClose();
              }}
            >
              Use this draft
            </Button>
          ) : null}
        </>
      }
    >
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          write.mutate();
        }}
      >
        <TextArea
          label="What should the email say?"
          rows={4}
          maxLength={BRIEF_MAX}
          required
          value={brief}
          onChange={(event) => setBrief(event.target.value)}
          hint={`Up to ${BRIEF_MAX.toLocaleString()} characters. ${existingHtml.trim() ? 'The current HTML is sent as a starting point.' : ''}`}
          error={fieldError(write.error, 'brief')}
        />
        <SelectField
          label="Tone"
          value={tone}
          onChange={(event) => setTone(event.target.value as Tone)}
          options={TONES.map((value) => ({ value, label: value[0]!.toUpperCase() + value.slice(1) }))}
        />
        <div className="form-actions">
          <Button type="submit" variant={result ? 'secondary' : 'primary'} busy={write.isPending}>
            {result ? 'Write again' : 'Write the draft'}
          </Button>
        </div>
        <ErrorMessage error={write.error} title="No draft." />
      </form>
      {result ? (
        <div className="stack" role="status">
          <SandboxedHtml html={result.html} title="The drafted email" height={320} />
          <AiCreditsNote credits={result.credits} />
        </div>
      ) : null}
    </Dialog>
  );
}
