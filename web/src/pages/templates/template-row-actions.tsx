import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage } from '../../ui/error-message';
import { useToast } from '../../ui/toast';
import type { TemplateItem } from './template-types';

/** Duplicate (a new draft, opened) and delete (asked first: sends naming it fail from then on). */
export function TemplateRowActions({ template }: { template: TemplateItem }) {
  const client = useQueryClient();
  const toast = useToast();
  const { navigate } = useRouter();
  const [confirming, setConfirming] = useState(false);
  const duplicate = useMutation({
    mutationFn: () => api.post<{ id: string }>(`/templates/${template.id}/duplicate`),
    onSuccess: async (copy) => {
      await client.invalidateQueries({ queryKey: ['/templates'] });
      toast(`Copied as “${template.name} (copy)”`);
      navigate(`/templates/${copy.id}`);
    },
  });
  const remove = useMutation({
    mutationFn: () => api.delete(`/templates/${template.id}`),
    onSuccess: async () => {
      setConfirming(false);
      await client.invalidateQueries({ queryKey: ['/templates'] });
      toast(`Template “${template.name}” deleted`);
    },
  });
  return (
    <div className="row-actions">
      <Button className="btn-small" busy={duplicate.isPending} onClick={() => duplicate.mutate()}>
        Duplicate<span className="visually-hidden"> {template.name}</span>
      </Button>
      <Button
        className="btn-small"
        variant="ghost"
        onClick={() => {
          remove.reset();
          setConfirming(true);
        }}
      >
        Delete<span className="visually-hidden"> {template.name}</span>
      </Button>
      <ErrorMessage error={duplicate.error} />
      <ConfirmDialog
        open={confirming}
        title={`Delete “${template.name}”?`}
        confirmLabel="Delete the template"
        onConfirm={() => remove.mutate()}
        onClose={() => setConfirming(false)}
        busy={remove.isPending}
        error={remove.error}
      >
        <p>
          Sends that name it
          {template.alias ? (
            <>
              {' '}
              (by id or by its alias <code>{template.alias}</code>)
            </>
          ) : null}{' '}
          are refused from then on, and its alias becomes free. Emails already sent keep their content.
        </p>
      </ConfirmDialog>
    </div>
  );
}
