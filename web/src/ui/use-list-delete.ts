import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client';
import { useToast } from './toast';

/**
 * Deleting a row of a list page after its confirmation dialog: which row is being asked about,
 * the DELETE `<listPath>/<id>`, a toast naming it, and the list read again. A refusal stays on the
 * mutation (`remove.error`) for the dialog to show.
 */
export function useListDelete<T extends { id: string }>(listPath: string, described: (row: T) => string) {
  const client = useQueryClient();
  const toast = useToast();
  const [deleting, setDeleting] = useState<T | null>(null);
  const remove = useMutation({
    mutationFn: (row: T) => api.delete(`${listPath}/${row.id}`),
    onSuccess: async (_answer, row) => {
      setDeleting(null);
      toast(`${described(row)} deleted`);
      await client.invalidateQueries({ queryKey: [listPath] });
    },
  });
  return { deleting, setDeleting, remove };
}
