import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { Button } from '../../ui/button';
import { Dialog } from '../../ui/dialog';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { useToast } from '../../ui/toast';
import { fallbackValue } from './fallback';
import type { ContactProperty } from './property-types';

/** Only the fallback of a property can change (the key and the type are fixed). */
export function EditFallbackDialog({ property, onClose }: { property: ContactProperty; onClose: () => void }) {
  const client = useQueryClient();
  const toast = useToast();
  const [text, setText] = useState(property.fallback_value === null ? '' : String(property.fallback_value));
  const save = useMutation({
    mutationFn: () =>
      api.patch(`/contact-properties/${property.id}`, { fallback_value: fallbackValue(property.type, text) }),
    onSuccess: async () => {
      toast(`Fallback of ${property.key} saved`);
      await client.invalidateQueries({ queryKey: ['/contact-properties'] });
      onClose();
    },
  });
  return (
    <Dialog
      open
      title={`Edit ${property.key}`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" busy={save.isPending} onClick={() => save.mutate()}>
            Save
          </Button>
        </>
      }
    >
      <p>
        The key and the type ({property.type}) are fixed once declared; the fallback is printed for a contact without a
        value.
      </p>
      <TextField
        label="Fallback value"
        type={property.type === 'number' ? 'number' : 'text'}
        step={property.type === 'number' ? 'any' : undefined}
        value={text}
        onChange={(e) => setText(e.target.value)}
        error={fieldError(save.error, 'fallback_value')}
        hint="Empty: no fallback."
      />
      <ErrorMessage error={save.error} />
    </Dialog>
  );
}
