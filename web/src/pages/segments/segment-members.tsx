import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { useCursorList } from '../../api/list';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card, EmptyState, Loading } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { useToast } from '../../ui/toast';
import type { SegmentMember } from './segment-types';

/**
 * The segment's members as a broadcast would resolve them (filter matches and contacts added by
 * hand, before unsubscribes and suppressions), cursor-paged; add a contact by address or ID, and
 * end a membership added by hand (a filter match stays a member: said beside the button).
 */
export function SegmentMembers({ segmentId, hasFilter }: { segmentId: string; hasFilter: boolean }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const list = useCursorList<SegmentMember>(`/segments/${segmentId}/contacts`);
  const [contact, setContact] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['/segments', segmentId] });
  const refreshList = () =>
    Promise.all([refresh(), queryClient.invalidateQueries({ queryKey: [`/segments/${segmentId}/contacts`] })]);
  const add = useMutation({
    mutationFn: (who: string) => api.post(`/contacts/${encodeURIComponent(who)}/segments/${segmentId}`),
    onSuccess: async () => {
      toast(`${contact.trim()} added`);
      setContact('');
      await refreshList();
    },
  });
  const remove = useMutation({
    mutationFn: (member: SegmentMember) => api.delete(`/contacts/${member.id}/segments/${segmentId}`),
    onSuccess: async (_answer, member) => {
      toast(`${member.email}: added-by-hand membership ended`);
      await refreshList();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (contact.trim()) add.mutate(contact.trim());
  };
  return (
    <Card title="Contacts in this segment" id="segment-members">
      <form className="row" aria-label="Add a contact to the segment" onSubmit={submit}>
        <TextField
          label="Add a contact"
          value={contact}
          placeholder="Email address or contact ID"
          onChange={(e) => setContact(e.target.value)}
        />
        <Button type="submit" busy={add.isPending} disabled={!contact.trim()}>
          Add to segment
        </Button>
      </form>
      <ErrorMessage error={add.error} title="The contact was not added" />
      <ErrorMessage error={remove.error} title="The membership was not ended" />
      <ErrorMessage error={list.error} />
      {hasFilter ? (
        <p className="muted">“Remove” ends a membership added by hand; a contact matching the filter stays a member.</p>
      ) : null}
      {list.isLoading ? (
        <Loading />
      ) : list.isEmpty ? (
        <EmptyState title="No members yet">
          {hasFilter ? 'No contact matches the filter and none was added by hand.' : 'Add contacts by address above.'}
        </EmptyState>
      ) : (
        <DataTable
          caption="Segment members"
          rows={list.rows}
          rowKey={(row) => row.id}
          columns={[
            { header: 'Email', cell: (row) => <span className="break-all">{row.email}</span> },
            {
              header: 'Name',
              cell: (row) =>
                [row.first_name, row.last_name].filter(Boolean).join(' ') || <span className="muted">—</span>,
            },
            {
              header: <span className="visually-hidden">Actions</span>,
              cell: (row) => (
                <Button
                  variant="ghost"
                  aria-label={`Remove ${row.email} from the segment`}
                  busy={remove.isPending && remove.variables?.id === row.id}
                  onClick={() => remove.mutate(row)}
                >
                  Remove
                </Button>
              ),
            },
          ]}
        />
      )}
      <ListPager list={list} />
    </Card>
  );
}
