import { useMutation } from '@tanstack/react-query';
import { api } from '../../api/client';
import { AiAssistOffHint, useAiAssist } from '../ai/ai-availability';
import { AiCreditsNote } from '../ai/ai-credits';
import type { Diagnosis } from '../ai/ai-types';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Card } from '../../ui/page';
import { Time } from '../../ui/time';

/**
 * "Why did this happen?" (POST /emails/{id}/diagnose): a model reads what the appliance knows of
 * the email (its events, the receiving servers' replies, the domain's DNS and DKIM, block lists,
 * suppressions) without the addresses or the body, and answers a summary, causes and next steps.
 * The same state asked again is answered from the stored diagnosis, at no cost.
 */
export function EmailDiagnosis({ emailId }: { emailId: string }) {
  const ai = useAiAssist();
  const diagnose = useMutation({ mutationFn: () => api.post<Diagnosis>(`/emails/${emailId}/diagnose`) });
  const result = diagnose.data;
  return (
    <Card
      title="Diagnosis"
      id="diagnosis"
      actions={
        ai.enabled ? (
          <Button busy={diagnose.isPending} onClick={() => diagnose.mutate()}>
            {result ? 'Diagnose again' : 'Diagnose with AI'}
          </Button>
        ) : null
      }
    >
      {ai.loading ? null : ai.enabled ? (
        <p className="muted">
          Explains the delivery from its events and the receiving servers’ replies. The model never sees the addresses
          or the content.
        </p>
      ) : (
        <AiAssistOffHint what="A diagnosis" />
      )}
      <ErrorMessage error={diagnose.error} title="No diagnosis." />
      {result ? <DiagnosisResult diagnosis={result} /> : null}
    </Card>
  );
}

function DiagnosisResult({ diagnosis }: { diagnosis: Diagnosis }) {
  return (
    <div className="stack diagnosis" role="status">
      {diagnosis.cause === 'provider_failure' ? (
        <p className="alert alert-warn">
          This email failed on this appliance’s own mail servers, not at the recipient’s: the operator has been told by
          the logs. No credit was used.
        </p>
      ) : null}
      <p>{diagnosis.summary}</p>
      <TitledList title="Likely causes" items={diagnosis.likely_causes} />
      <TitledList title="Next steps" items={diagnosis.next_steps} ordered />
      <p className="muted">
        {diagnosis.stored ? 'Made earlier ' : 'Made '}
        <Time value={diagnosis.created_at} />
        {diagnosis.stored ? ' for the email as it is now.' : '.'}
      </p>
      <AiCreditsNote credits={diagnosis.credits} free={diagnosis.stored || diagnosis.cause === 'provider_failure'} />
    </div>
  );
}

/** A heading and its list, or nothing when the model gave no item. */
function TitledList({ title, items, ordered }: { title: string; items: string[]; ordered?: boolean }) {
  if (items.length === 0) return null;
  const List = ordered ? 'ol' : 'ul';
  return (
    <>
      <h3>{title}</h3>
      <List>
        {items.map((item) => (
          <li key={item}>{item}</li>
        ))}
      </List>
    </>
  );
}
