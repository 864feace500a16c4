import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField, TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import { fallbackValue } from './fallback';
import type { PropertyType } from './property-types';

/** Declares a property: its key (also the merge variable) and type are fixed from then on. */
export function CreatePropertyForm({ onDone }: { onDone: () => void }) {
  const client = useQueryClient();
  const toast = useToast();
  const [key, setKey] = useState('');
  const [type, setType] = useState<PropertyType>('string');
  const [fallback, setFallback] = useState('');
  const create = useMutation({
    mutationFn: () =>
      api.post('/contact-properties', { key: key.trim(), type, fallback_value: fallbackValue(type, fallback) }),
    onSuccess: async () => {
      toast(`Property ${key.trim()} declared`);
      await client.invalidateQueries({ queryKey: ['/contact-properties'] });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Card title="New property" id="new-property">
      <form className="stack" aria-label="New property" onSubmit={submit}>
        <div className="grid-2">
          <TextField
            label="Key"
            required
            value={key}
            maxLength={50}
            pattern="[A-Za-z0-9_]+"
            onChange={(e) => setKey(e.target.value)}
            error={fieldError(create.error, 'key')}
            hint="Letters, digits and underscores; it is also the merge variable, {{{key}}}. It cannot change later."
          />
          <SelectField
            label="Type"
            value={type}
            onChange={(e) => setType(e.target.value as PropertyType)}
            error={fieldError(create.error, 'type')}
            hint="Fixed once declared."
            options={[
              { value: 'string', label: 'Text (string)' },
              { value: 'number', label: 'Number' },
            ]}
          />
        </div>
        <TextField
          label="Fallback value"
          type={type === 'number' ? 'number' : 'text'}
          step={type === 'number' ? 'any' : undefined}
          value={fallback}
          onChange={(e) => setFallback(e.target.value)}
          error={fieldError(create.error, 'fallback_value')}
          hint="Printed for a contact without a value. Optional."
        />
        <ErrorMessage error={create.error} />
        <div className="row">
          <Button type="submit" variant="primary" busy={create.isPending}>
            Declare property
          </Button>
          <Button onClick={onDone}>Cancel</Button>
        </div>
      </form>
    </Card>
  );
}
