import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, type List } from '../../api/client';
import { Button } from '../../ui/button';
import { ConfirmDialog, Dialog } from '../../ui/dialog';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { Card, EmptyState, Loading } from '../../ui/page';
import { RowActions } from '../../ui/row-actions';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { useToast } from '../../ui/toast';
import { useRefreshInbox } from './inbox-cache';
import { inboxPath, type Label } from './inbox-types';
import { LabelChip } from './label-chip';

const DEFAULT_COLOUR = '#3646c9';

/** The colour picker with its #RRGGBB value beside it (the picker's own value, in words). */
function ColourField({ value, onChange, error }: { value: string; onChange: (v: string) => void; error?: string }) {
  return (
    <TextField
      label="Colour"
      type="color"
      value={value}
      onChange={(event) => onChange(event.target.value)}
      hint={value.toUpperCase()}
      error={error}
    />
  );
}

export function useLabels(inboxId: string) {
  const path = `${inboxPath(inboxId)}/labels`;
  return useQuery({ queryKey: [path], queryFn: ({ signal }) => api.get<List<Label>>(path, { signal }) });
}

/** The inbox's labels: create one with a colour, rename or recolour it, delete it (it comes off every thread). */
export function LabelsTab({ inboxId }: { inboxId: string }) {
  const path = `${inboxPath(inboxId)}/labels`;
  const labels = useLabels(inboxId);
  const refresh = useRefreshInbox(inboxId);
  const toast = useToast();
  const [form, setForm] = useState({ name: '', color: DEFAULT_COLOUR });
  const [editing, setEditing] = useState<Label | null>(null);
  const [deleting, setDeleting] = useState<Label | null>(null);
  const create = useMutation({
    mutationFn: () => api.post(path, { name: form.name, color: form.color.toUpperCase() }),
    onSuccess: async () => {
      toast(`Label ${form.name.trim()} created`);
      setForm({ name: '', color: DEFAULT_COLOUR });
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (label: Label) => api.delete(`${path}/${label.id}`),
    onSuccess: async (_answer, label) => {
      toast(`Label ${label.name} deleted`);
      setDeleting(null);
      await refresh();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <div className="stack">
      <Card title="New label" id="new-label">
        <form className="row" onSubmit={submit} aria-label="Create a label">
          <TextField
            label="Name"
            required
            value={form.name}
            onChange={(event) => setForm((value) => ({ ...value, name: event.target.value }))}
            error={fieldError(create.error, 'name')}
          />
          <ColourField
            value={form.color}
            onChange={(color) => setForm((value) => ({ ...value, color }))}
            error={fieldError(create.error, 'color')}
          />
          <Button type="submit" variant="primary" busy={create.isPending}>
            Create label
          </Button>
        </form>
        <ErrorMessage error={create.error} />
      </Card>
      <Card title="Labels" id="labels">
        <ErrorMessage error={labels.error} />
        {labels.isLoading ? (
          <Loading label="Loading labels…" />
        ) : (
          <DataTable
            caption="Labels of this inbox"
            rows={labels.data?.data ?? []}
            rowKey={(label) => label.id}
            empty={labels.error ? null : <EmptyState title="No labels yet" />}
            columns={[
              { header: 'Label', cell: (label) => <LabelChip label={label} /> },
              { header: 'Colour', cell: (label) => <code>{label.color}</code> },
              { header: 'Created', className: 'nowrap', cell: (label) => <Time value={label.created_at} /> },
              {
                header: <span className="visually-hidden">Actions</span>,
                cell: (label) => (
                  <RowActions
                    name={`label ${label.name}`}
                    onEdit={() => setEditing(label)}
                    onDelete={() => setDeleting(label)}
                  />
                ),
              },
            ]}
          />
        )}
      </Card>
      {editing ? (
        <EditLabelDialog path={path} label={editing} onClose={() => setEditing(null)} onSaved={refresh} />
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this label?"
        confirmLabel="Delete label"
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
      >
        <p>
          <strong>{deleting?.name}</strong> comes off every thread that has it.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function EditLabelDialog({
  path,
  label,
  onClose,
  onSaved,
}: {
  path: string;
  label: Label;
  onClose: () => void;
  onSaved: () => Promise<void>;
}) {
  const toast = useToast();
  const [name, setName] = useState(label.name);
  const [color, setColor] = useState(/^#[0-9a-fA-F]{6}$/.test(label.color) ? label.color : DEFAULT_COLOUR);
  const save = useMutation({
    mutationFn: () => api.patch(`${path}/${label.id}`, { name, color: color.toUpperCase() }),
    onSuccess: async () => {
      toast(`Label ${name.trim()} saved`);
      await onSaved();
      onClose();
    },
  });
  const formId = `edit-label-${label.id}`;
  return (
    <Dialog
      open
      title={`Edit the label ${label.name}`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" form={formId} variant="primary" busy={save.isPending}>
            Save label
          </Button>
        </>
      }
    >
      <form
        id={formId}
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <TextField
          label="Name"
          required
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={fieldError(save.error, 'name')}
        />
        <ColourField value={color} onChange={setColor} error={fieldError(save.error, 'color')} />
      </form>
      <ErrorMessage error={save.error} />
    </Dialog>
  );
}
