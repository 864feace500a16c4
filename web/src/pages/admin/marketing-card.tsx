import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage } from '../../ui/error-message';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import type { Marketing } from './admin-types';

/** The platform-wide marketing switch (`mailroom marketing pause|resume`): broadcasts for every team. */
export function MarketingCard() {
  const client = useQueryClient();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const status = useQuery({ queryKey: ['admin', 'marketing'], queryFn: () => api.get<Marketing>('/admin/marketing') });
  const paused = status.data?.marketing === 'paused';
  const change = useMutation({
    mutationFn: () => api.post<Marketing>(`/admin/marketing/${paused ? 'resume' : 'pause'}`, {}),
    onSuccess: (answer) => {
      setOpen(false);
      client.setQueryData(['admin', 'marketing'], answer);
      toast(answer.marketing === 'paused' ? 'Marketing paused' : 'Marketing resumed');
    },
  });
  return (
    <Card title="Marketing" id="marketing">
      <ErrorMessage error={status.error} />
      {status.data ? (
        <div className="admin-inline">
          <p>
            Broadcasts, every team: {paused ? <Badge tone="bad">paused</Badge> : <Badge tone="good">enabled</Badge>}{' '}
            <span className="muted">· set by {status.data.source}</span>
          </p>
          <Button variant={paused ? 'secondary' : 'danger'} onClick={() => setOpen(true)}>
            {paused ? 'Resume marketing' : 'Pause marketing'}
          </Button>
        </div>
      ) : null}
      <ConfirmDialog
        open={open}
        title={paused ? 'Resume marketing?' : 'Pause marketing?'}
        confirmLabel={paused ? 'Resume marketing' : 'Pause marketing'}
        onConfirm={() => change.mutate()}
        onClose={() => {
          setOpen(false);
          change.reset();
        }}
        busy={change.isPending}
        error={change.error}
      >
        <p>
          {paused
            ? 'Broadcasts may be sent again; those held continue where they stopped.'
            : 'Every team’s broadcast sends are refused (403), and broadcasts already sending are held, on every node. Transactional mail is not affected.'}
        </p>
      </ConfirmDialog>
    </Card>
  );
}
