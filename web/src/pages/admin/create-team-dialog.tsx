import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { CopyButton } from '../../ui/copy-button';
import { Dialog } from '../../ui/dialog';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField, TextField } from '../../ui/field';
import { PLANS, type TeamCreated } from './admin-types';

/** Creates a team with its first full-access key, shown once (what `mailroom team create` does). */
export function CreateTeamDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [plan, setPlan] = useState('free');
  const [owner, setOwner] = useState('');
  const create = useMutation({
    mutationFn: () =>
      api.post<TeamCreated>('/admin/teams', {
        name: name.trim(),
        plan,
        ...(owner.trim() ? { owner_email: owner.trim() } : {}),
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['/admin/teams'] }),
  });
  const close = () => {
    setName('');
    setOwner('');
    setPlan('free');
    create.reset();
    onClose();
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const created = create.data;
  return (
    <Dialog open={open} title={created ? `${created.team.name} created` : 'Create a team'} onClose={close}>
      {created ? (
        <div className="stack">
          <p>
            Its first API key (full access) is shown this once. Give it to the team, or create keys for it later with{' '}
            <code>mailroom key create</code>.
          </p>
          <TextField label="The new team's API key" readOnly value={created.api_key.token} className="admin-token" />
          <div className="form-actions">
            <CopyButton value={created.api_key.token} label="Copy the key" />
            <Button variant="primary" onClick={close}>
              Done
            </Button>
          </div>
        </div>
      ) : (
        <form aria-label="Create a team" onSubmit={onSubmit} className="stack">
          <TextField
            label="Name"
            required
            maxLength={80}
            value={name}
            onChange={(event) => setName(event.target.value)}
            error={fieldError(create.error, 'name')}
          />
          <SelectField
            label="Plan"
            value={plan}
            onChange={(event) => setPlan(event.target.value)}
            options={PLANS.map((code) => ({ value: code, label: code }))}
            error={fieldError(create.error, 'plan')}
          />
          <TextField
            label="Owner's e-mail (optional)"
            type="email"
            hint="Invited as the team's owner."
            value={owner}
            onChange={(event) => setOwner(event.target.value)}
            error={fieldError(create.error, 'owner_email')}
          />
          <ErrorMessage error={create.error} />
          <div className="form-actions">
            <Button onClick={close}>Cancel</Button>
            <Button type="submit" variant="primary" busy={create.isPending}>
              Create team
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
