import { useState } from 'react';
import { useCursorList } from '../../api/list';
import { useSearchParam } from '../../router';
import { Button } from '../../ui/button';
import { ConfirmDialog } from '../../ui/dialog';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { RowActions } from '../../ui/row-actions';
import { useListDelete } from '../../ui/use-list-delete';
import { CreatePropertyForm } from './create-property-form';
import { EditFallbackDialog } from './edit-fallback-dialog';
import type { ContactProperty } from './property-types';

/**
 * The team's contact properties: declare, change a fallback, delete. A delete the API refuses
 * (a segment filter or an automation still reads the property: 409 resource_locked) stays in
 * its dialog with the API's reason, which names what uses it.
 */
export default function PropertiesPage() {
  const [adding, setAdding] = useSearchParam('new');
  const list = useCursorList<ContactProperty>('/contact-properties');
  const [editing, setEditing] = useState<ContactProperty | null>(null);
  const { deleting, setDeleting, remove } = useListDelete<ContactProperty>(
    '/contact-properties',
    (property) => `Property ${property.key}`,
  );
  return (
    <>
      <PageHeader
        title="Properties"
        description="Typed values each contact can hold (a plan, a city, a score), used as merge variables, in segment filters and by automations."
        actions={
          adding ? null : (
            <Button variant="primary" onClick={() => setAdding('1')}>
              New property
            </Button>
          )
        }
      />
      {adding ? <CreatePropertyForm onDone={() => setAdding(null)} /> : null}
      <Card>
        <ErrorMessage error={list.error} />
        {list.isLoading ? (
          <Loading />
        ) : list.isEmpty ? (
          <EmptyState title="No properties yet">Declare one to give contacts typed values.</EmptyState>
        ) : (
          <DataTable
            caption="Contact properties"
            rows={list.rows}
            rowKey={(row) => row.id}
            columns={[
              { header: 'Key', cell: (row) => <code>{row.key}</code> },
              { header: 'Type', cell: (row) => row.type },
              {
                header: 'Fallback',
                cell: (row) =>
                  row.fallback_value === null ? <span className="muted">—</span> : String(row.fallback_value),
              },
              { header: 'Merge variable', cell: (row) => <code>{`{{{${row.key}}}}`}</code> },
              { header: 'Declared', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
              {
                header: <span className="visually-hidden">Actions</span>,
                cell: (row) => (
                  <RowActions name={row.key} onEdit={() => setEditing(row)} onDelete={() => setDeleting(row)} />
                ),
              },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
      {editing ? <EditFallbackDialog property={editing} onClose={() => setEditing(null)} /> : null}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.key ?? 'property'}?`}
        confirmLabel="Delete property"
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
      >
        <p>
          Every contact’s value of <code>{deleting?.key}</code> is deleted with it, and{' '}
          <code>{`{{{${deleting?.key}}}}`}</code> prints nothing from then on. The appliance refuses while a segment
          filter or an automation uses it.
        </p>
      </ConfirmDialog>
    </>
  );
}
