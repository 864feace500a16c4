import { ErrorMessage } from '../../ui/error-message';
import { Checkbox } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { useUpdateTeam, type Team } from './team-query';

/**
 * AI assist (PATCH /team ai_assist_enabled): subject-line suggestions and drafts in the template
 * editor, diagnoses on an email's page. Turning it on needs an AI provider configured on the
 * appliance; the API says so when there is none, and that message is shown here. While the
 * PATCH is in flight the box shows what was asked for (a click that seems to do nothing invites a
 * second click); a refusal puts it back.
 */
export function AiAssistCard({ team }: { team: Team }) {
  const toast = useToast();
  const update = useUpdateTeam((next) => toast(next.ai_assist_enabled ? 'AI assist is on' : 'AI assist is off'));
  return (
    <Card title="AI assist" id="ai-assist">
      <Checkbox
        label="Offer AI help in this team"
        checked={
          update.isPending ? (update.variables.ai_assist_enabled ?? team.ai_assist_enabled) : team.ai_assist_enabled
        }
        disabled={update.isPending}
        onChange={(event) => update.mutate({ ai_assist_enabled: event.target.checked })}
        hint="Suggests subject lines, drafts email bodies and explains deliveries. Each answer uses one of the plan’s monthly AI credits. A diagnosis never shows the model addresses or content."
      />
      <ErrorMessage error={update.error} title="Not changed." />
    </Card>
  );
}
