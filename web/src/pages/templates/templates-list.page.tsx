import { useCursorList } from '../../api/list';
import { Link, useSearchParam } from '../../router';
import { StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { SelectField, TextField } from '../../ui/field';
import { Card, EmptyState, Loading, PageHeader } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { CreateTemplateForm } from './create-template-form';
import { TemplateRowActions } from './template-row-actions';
import type { TemplateItem } from './template-types';

/** The team's templates, most recently changed first; search and status filters live in the URL. */
export default function TemplatesListPage() {
  const [adding, setAdding] = useSearchParam('new');
  const [search, setSearch] = useSearchParam('search');
  const [status, setStatus] = useSearchParam('status');
  const list = useCursorList<TemplateItem>('/templates', {
    search: search.trim() || undefined,
    status: status || undefined,
  });
  const filtered = Boolean(search || status);
  const empty = list.isEmpty;
  return (
    <>
      <PageHeader
        title="Templates"
        description="Reusable emails with placeholders. Sends name a published template by id or alias and give the values."
        actions={
          adding ? null : (
            <Button variant="primary" onClick={() => setAdding('1')}>
              New template
            </Button>
          )
        }
      />
      {adding ? <CreateTemplateForm onCancel={() => setAdding(null)} /> : null}
      <Card>
        <form
          className="filters"
          role="search"
          aria-label="Filter templates"
          onSubmit={(event) => event.preventDefault()}
        >
          <TextField
            label="Search"
            type="search"
            value={search}
            placeholder="Name or alias"
            onChange={(event) => setSearch(event.target.value || null)}
          />
          <SelectField
            label="Status"
            value={status}
            onChange={(event) => setStatus(event.target.value || null)}
            options={[
              { value: '', label: 'Any' },
              { value: 'draft', label: 'Draft' },
              { value: 'published', label: 'Published' },
            ]}
          />
        </form>
        <ErrorMessage error={list.error} />
        {list.isLoading ? (
          <Loading />
        ) : empty ? (
          filtered ? (
            <EmptyState title="No template matches">Change the search or the status filter.</EmptyState>
          ) : (
            <EmptyState title="No templates yet">
              Create one from a blank page or a starter (welcome, password reset, verification code, receipt).
            </EmptyState>
          )
        ) : (
          <DataTable
            caption="Templates"
            rows={list.rows}
            rowKey={(row) => row.id}
            columns={[
              {
                header: 'Name',
                cell: (row) => (
                  <Link to={`/templates/${row.id}`} className="break-all">
                    {row.name}
                  </Link>
                ),
              },
              {
                header: 'Alias',
                cell: (row) => (row.alias ? <code>{row.alias}</code> : <span className="muted">—</span>),
              },
              { header: 'Status', cell: (row) => <StatusBadge status={row.status} /> },
              { header: 'Updated', className: 'nowrap', cell: (row) => <Time value={row.updated_at} /> },
              {
                header: <span className="visually-hidden">Actions</span>,
                cell: (row) => <TemplateRowActions template={row} />,
              },
            ]}
          />
        )}
        <ListPager list={list} />
      </Card>
    </>
  );
}
