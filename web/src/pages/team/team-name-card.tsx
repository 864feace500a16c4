import { useState } from 'react';
import { useAdminOnly } from '../../api/session';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { useUpdateTeam, type Team } from './team-query';

/** The team's name. Renaming needs an owner or admin (the API refuses a member). */
export function TeamNameCard({ team }: { team: Team }) {
  const notAdmin = useAdminOnly();
  const toast = useToast();
  const [name, setName] = useState(team.name);
  const update = useUpdateTeam(() => toast('Team renamed'));
  return (
    <Card title="Name" id="team-name">
      <form
        aria-label="Rename the team"
        onSubmit={(event) => {
          event.preventDefault();
          update.mutate({ name: name.trim() });
        }}
      >
        <TextField
          label="Team name"
          name="name"
          value={name}
          maxLength={80}
          required
          disabled={Boolean(notAdmin)}
          onChange={(event) => setName(event.target.value)}
          error={fieldError(update.error, 'name')}
          hint={`1 to 80 characters. The team’s slug, ${team.slug}, does not change.`}
        />
        <ErrorMessage error={update.error} />
        <div className="form-actions">
          <Button
            type="submit"
            variant="primary"
            busy={update.isPending}
            disabled={name.trim() === team.name}
            disabledReason={notAdmin}
          >
            Rename
          </Button>
        </div>
      </form>
    </Card>
  );
}
