import { useCursorList } from '../../api/list';
import { Badge, StatusBadge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { versionsPath, type TemplateVersionItem } from './template-types';

/**
 * GET /templates/:id/versions, newest first: each version with its number, dates and whether
 * sends use it (published) or edits go to it (current). "Compare" makes it the version the
 * changes card diffs the editor against (`chosenId`, kept in the URL; empty: the published one).
 */
export function TemplateVersionsCard({
  templateId,
  chosenId,
  onChoose,
}: {
  templateId: string;
  chosenId: string;
  onChoose: (versionId: string | null) => void;
}) {
  const list = useCursorList<TemplateVersionItem>(versionsPath(templateId), {}, { limit: 10 });
  const compared = (row: TemplateVersionItem) => (chosenId ? row.id === chosenId : row.published);
  return (
    <Card title="Versions" id="template-versions">
      <p className="muted">
        Publishing makes the current version the one sends use; editing a published template opens a new version.
      </p>
      <ErrorMessage error={list.error} />
      {list.isLoading ? (
        <Loading label="Reading the versions…" />
      ) : (
        <DataTable
          caption="Versions of this template, newest first"
          rows={list.rows}
          rowKey={(row) => row.id}
          columns={[
            {
              header: 'Version',
              className: 'nowrap',
              cell: (row) => (
                <span className="template-status">
                  <strong>Version {row.version}</strong>
                  {row.published ? <StatusBadge status="published" /> : null}
                  {row.current ? <Badge tone="info">current</Badge> : null}
                </span>
              ),
            },
            { header: 'Subject', cell: (row) => row.subject ?? <span className="muted">(none)</span> },
            { header: 'Created', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
            { header: 'Last edited', className: 'nowrap', cell: (row) => <Time value={row.updated_at} /> },
            {
              header: <span className="visually-hidden">Compare</span>,
              className: 'nowrap',
              cell: (row) => (
                <Button
                  variant="ghost"
                  className="btn-small"
                  aria-pressed={compared(row)}
                  aria-label={`Compare the editor with version ${row.version}`}
                  // The published version is the default: choosing it leaves the URL clean.
                  onClick={() => onChoose(row.published ? null : row.id)}
                >
                  {compared(row) ? 'Compared below' : 'Compare'}
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
