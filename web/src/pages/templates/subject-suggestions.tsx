import { useMutation } from '@tanstack/react-query';
import { api } from '../../api/client';
import { AiAssistOffHint, useAiAssist } from '../ai/ai-availability';
import { AiCreditsNote } from '../ai/ai-credits';
import type { SubjectSuggestions as Suggestions } from '../ai/ai-types';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';

/**
 * Subject lines suggested by the model (POST /ai/subject-lines) from the subject, HTML and text
 * being edited; "Use" puts one in the subject field. Nothing is saved until the template is.
 */
export function SubjectSuggestions({
  subject,
  html,
  text,
  onUse,
}: {
  subject: string;
  html: string;
  text: string;
  onUse: (subject: string) => void;
}) {
  const ai = useAiAssist();
  const suggest = useMutation({
    mutationFn: () =>
      api.post<Suggestions>('/ai/subject-lines', {
        ...(subject.trim() ? { subject } : {}),
        ...(html.trim() ? { html } : {}),
        ...(text.trim() ? { text } : {}),
      }),
  });
  if (ai.loading) return null;
  if (!ai.enabled) return <AiAssistOffHint what="Suggesting subject lines" />;
  const empty = !subject.trim() && !html.trim() && !text.trim();
  return (
    <div className="stack ai-suggestions">
      <div className="row">
        <Button
          busy={suggest.isPending}
          disabledReason={empty ? 'Write a subject or a body first: the model works from them.' : undefined}
          onClick={() => suggest.mutate()}
        >
          Suggest subject lines
        </Button>
      </div>
      <ErrorMessage error={suggest.error} title="No suggestions." />
      {suggest.data ? (
        <div role="status">
          <ul className="suggestion-list" aria-label="Suggested subject lines">
            {suggest.data.suggestions.map((suggestion) => (
              <li key={suggestion}>
                <span>{suggestion}</span>
                <Button className="btn-small" onClick={() => onUse(suggestion)} aria-label={`Use “${suggestion}”`}>
                  Use
                </Button>
              </li>
            ))}
          </ul>
          <AiCreditsNote credits={suggest.data.credits} />
        </div>
      ) : null}
    </div>
  );
}
