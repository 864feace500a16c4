import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, type List } from '../../api/client';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField, TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import type { Starter } from './template-types';

/** A blank template still needs a body: the API refuses an empty html. */
const BLANK_HTML = '<p>Hello,</p>\n<p>Write your message here.</p>\n';

/** A new template (a draft): a name, an optional alias, blank or from a starter (GET /starters); then its editor. */
export function CreateTemplateForm({ onCancel }: { onCancel: () => void }) {
  const client = useQueryClient();
  const toast = useToast();
  const { navigate } = useRouter();
  const starters = useQuery({
    queryKey: ['/starters'],
    queryFn: () => api.get<List<Starter>>('/starters'),
    staleTime: Infinity,
  });
  const [name, setName] = useState('');
  const [alias, setAlias] = useState('');
  const [starter, setStarter] = useState('');
  const chosen = starters.data?.data.find((item) => item.slug === starter);
  const create = useMutation({
    mutationFn: () =>
      api.post<{ id: string }>('/templates', {
        name: name.trim(),
        ...(alias.trim() ? { alias: alias.trim() } : {}),
        ...(starter ? { starter } : { html: BLANK_HTML }),
      }),
    onSuccess: async (created) => {
      await client.invalidateQueries({ queryKey: ['/templates'] });
      toast('Template created as a draft');
      navigate(`/templates/${created.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Card title="New template" id="new-template">
      <form onSubmit={submit} aria-label="New template">
        <div className="grid-2">
          <TextField
            label="Name"
            name="name"
            value={name}
            onChange={(event) => setName(event.target.value)}
            required
            autoFocus
            error={fieldError(create.error, 'name')}
          />
          <TextField
            label="Alias"
            name="alias"
            value={alias}
            onChange={(event) => setAlias(event.target.value)}
            hint="Optional: a name to send with, like welcome-email."
            error={fieldError(create.error, 'alias')}
          />
        </div>
        <SelectField
          label="Start from"
          name="starter"
          value={starter}
          onChange={(event) => setStarter(event.target.value)}
          options={[
            { value: '', label: 'A blank page' },
            ...(starters.data?.data ?? []).map((item) => ({ value: item.slug, label: `Starter: ${item.name}` })),
          ]}
          hint={
            chosen
              ? `${chosen.description} Variables: ${chosen.variables.map((v) => v.key).join(', ') || 'none'}.`
              : 'Starters are complete designs that follow the team’s brand kit.'
          }
          error={fieldError(create.error, 'starter')}
        />
        <ErrorMessage error={starters.error} title="The starters could not be loaded." />
        <ErrorMessage error={create.error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={create.isPending}>
            Create the draft
          </Button>
          <Button onClick={onCancel}>Cancel</Button>
        </div>
      </form>
    </Card>
  );
}
