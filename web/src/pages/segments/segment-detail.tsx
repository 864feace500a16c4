import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { useRouter } from '../../router';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card, DescriptionList, Loading, PageHeader } from '../../ui/page';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import { FilterSummary } from './filter-summary';
import { SegmentMembers } from './segment-members';
import type { Segment, SegmentCounts } from './segment-types';
import { useFilterCatalogue } from './use-catalogue';

const number = new Intl.NumberFormat();

/** One segment: its counts, its filter in words, rename and delete, and its members. */
export function SegmentDetail({ id }: { id: string }) {
  const segment = useQuery({
    queryKey: ['/segments', id],
    queryFn: ({ signal }) => api.get<Segment>(`/segments/${id}`, { signal }),
  });
  const metrics = useQuery({
    queryKey: ['/segments', id, 'metrics'],
    queryFn: ({ signal }) => api.get<SegmentCounts>(`/segments/${id}/metrics`, { signal }),
  });
  const { topics } = useFilterCatalogue();
  if (segment.isLoading) return <Loading />;
  if (!segment.data) return <ErrorMessage error={segment.error} />;
  const s = segment.data;
  return (
    <>
      <PageHeader
        title={s.name}
        back={{ to: '/segments', label: 'Segments' }}
        actions={<DeleteSegment segment={s} />}
      />
      <div className="grid-2">
        <Card title="Members" id="segment-counts">
          <ErrorMessage error={metrics.error} />
          <DescriptionList
            items={[
              [
                'Contacts',
                metrics.data ? <span data-testid="segment-contacts">{number.format(metrics.data.contacts)}</span> : '…',
              ],
              ['Subscribed', metrics.data ? number.format(metrics.data.subscribed) : '…'],
              ['Unsubscribed', metrics.data ? number.format(metrics.data.unsubscribed) : '…'],
              ['Created', <Time key="created" value={s.created_at} />],
            ]}
          />
        </Card>
        <RenameSegment segment={s} />
      </div>
      <Card title="Filter" id="segment-filter">
        {s.filter ? (
          <>
            <FilterSummary filter={s.filter} topics={topics} />
            <p className="muted">
              A filter never changes once the segment exists: to change it, create a new segment and use that one.
            </p>
          </>
        ) : (
          <p className="muted">No filter: only the contacts added by hand are members.</p>
        )}
      </Card>
      <SegmentMembers segmentId={s.id} hasFilter={Boolean(s.filter)} />
    </>
  );
}

function RenameSegment({ segment }: { segment: Segment }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const [name, setName] = useState(segment.name);
  const rename = useMutation({
    mutationFn: () => api.patch(`/segments/${segment.id}`, { name: name.trim() }),
    onSuccess: async () => {
      toast('Segment renamed');
      await queryClient.invalidateQueries({ queryKey: ['/segments'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate();
  };
  return (
    <Card title="Name" id="segment-name">
      <form aria-label="Rename segment" onSubmit={submit}>
        <TextField
          label="Name"
          required
          maxLength={200}
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(rename.error, 'name')}
        />
        <ErrorMessage error={rename.error} />
        <Button type="submit" busy={rename.isPending} disabled={name.trim() === segment.name}>
          Rename
        </Button>
      </form>
    </Card>
  );
}

function DeleteSegment({ segment }: { segment: Segment }) {
  const { navigate } = useRouter();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const remove = useMutation({
    mutationFn: () => api.delete(`/segments/${segment.id}`),
    onSuccess: async () => {
      toast('Segment deleted');
      await queryClient.invalidateQueries({ queryKey: ['/segments'] });
      navigate('/segments');
    },
  });
  return (
    <>
      <Button variant="danger" onClick={() => setOpen(true)}>
        Delete segment
      </Button>
      <ConfirmDialog
        open={open}
        title={`Delete “${segment.name}”?`}
        confirmLabel="Delete segment"
        onConfirm={() => remove.mutate()}
        onClose={() => setOpen(false)}
        busy={remove.isPending}
        error={remove.error}
      >
        <p>
          Its contacts are kept. Broadcasts already sent keep their recipients; a draft that names this segment can no
          longer be sent.
        </p>
      </ConfirmDialog>
    </>
  );
}
