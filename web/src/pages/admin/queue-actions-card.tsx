import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card } from '../../ui/page';
import { useToast } from '../../ui/toast';
import type { QueueAction, QueueFilter } from './admin-types';
import { PurgeDialog } from './purge-dialog';
import { purge, purgePreview, runAction, type ActionName } from './queue-actions';
import { messages } from './format';

const DONE: Record<QueueAction['action'], string> = {
  hold: 'Held',
  release: 'Released',
  retry: 'Made due now',
  purge: 'Purged',
};

/**
 * What `mailroom queue hold|release|retry|purge` does, on the waiting messages matching a filter
 * (a destination domain, an email, a team; several narrow it). Purge asks first, naming how many.
 */
export function QueueActionsCard({ initial }: { initial?: QueueFilter }) {
  const client = useQueryClient();
  const toast = useToast();
  const [filter, setFilter] = useState<QueueFilter>({ domain: '', email_id: '', team_id: '', ...initial });
  const [result, setResult] = useState<QueueAction | null>(null);
  const [purging, setPurging] = useState<{ count: number } | null>(null);
  const done = async (answer: QueueAction) => {
    setResult(answer);
    toast(`${DONE[answer.action]}: ${messages(answer.affected)}`);
    await client.invalidateQueries({ queryKey: ['admin', 'queue'] });
  };
  const act = useMutation({ mutationFn: (action: ActionName) => runAction(action, filter), onSuccess: done });
  const preview = useMutation({ mutationFn: () => purgePreview(filter), onSuccess: setPurging });
  const confirmPurge = useMutation({
    mutationFn: () => purge(filter),
    onSuccess: async (answer) => {
      setPurging(null);
      await done(answer);
    },
  });
  const error = act.error ?? preview.error;
  const set = (field: keyof QueueFilter) => (event: { target: { value: string } }) =>
    setFilter((current) => ({ ...current, [field]: event.target.value }));
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    act.mutate('hold');
  };
  const busy = act.isPending || preview.isPending;
  return (
    <Card title="Hold, release, retry, purge" id="queue-actions">
      <form aria-label="Queue action" onSubmit={onSubmit} className="admin-filter-form">
        <p className="field-hint">
          Acts on the waiting messages (queued, deferred, held) that match every field given. At least one is needed.
        </p>
        <div className="admin-filter-fields">
          <TextField
            label="Destination domain"
            placeholder="gmail.com"
            value={filter.domain ?? ''}
            onChange={set('domain')}
            error={fieldError(error, 'domain')}
          />
          <TextField
            label="Email ID"
            value={filter.email_id ?? ''}
            onChange={set('email_id')}
            error={fieldError(error, 'email_id')}
          />
          <TextField
            label="Team ID"
            value={filter.team_id ?? ''}
            onChange={set('team_id')}
            error={fieldError(error, 'team_id')}
          />
        </div>
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={act.isPending && act.variables === 'hold'} disabled={busy}>
            Hold
          </Button>
          <Button
            busy={act.isPending && act.variables === 'release'}
            disabled={busy}
            onClick={() => act.mutate('release')}
          >
            Release
          </Button>
          <Button busy={act.isPending && act.variables === 'retry'} disabled={busy} onClick={() => act.mutate('retry')}>
            Retry now
          </Button>
          <Button variant="danger" busy={preview.isPending} disabled={busy} onClick={() => preview.mutate()}>
            Purge…
          </Button>
        </div>
      </form>
      <ErrorMessage error={error} />
      {result ? (
        <p role="status" className="admin-result">
          {DONE[result.action]}: {messages(result.affected)}.
        </p>
      ) : null}
      <PurgeDialog
        open={purging !== null}
        filter={filter}
        count={purging?.count ?? 0}
        onConfirm={() => confirmPurge.mutate()}
        onClose={() => {
          setPurging(null);
          confirmPurge.reset();
        }}
        busy={confirmPurge.isPending}
        error={confirmPurge.error}
      />
    </Card>
  );
}
