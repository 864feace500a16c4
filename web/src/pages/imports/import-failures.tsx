import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type List } from '../../api/client';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading } from '../../ui/page';
import { Pager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import type { ContactImport, ImportFailure } from './import-types';

const PAGE = 50;

/**
 * The failed rows the appliance keeps (the first 1,000), by row number: the cursor is a row
 * number, not an id, so this pages by hand rather than with useCursorList.
 */
export function ImportFailures({ imp }: { imp: ContactImport }) {
  const [cursors, setCursors] = useState<number[]>([]);
  const after = cursors.at(-1);
  const failures = useQuery({
    // The failed count in the key: a running import's report grows with it.
    queryKey: ['/contacts/imports', imp.id, 'failures', after ?? null, imp.counts.failed],
    queryFn: ({ signal }) =>
      api.get<List<ImportFailure>>(`/contacts/imports/${imp.id}/failures`, { query: { limit: PAGE, after }, signal }),
    placeholderData: keepPreviousData,
    enabled: imp.counts.failed > 0,
  });
  const rows = failures.data?.data ?? [];
  return (
    <Card title="Failed rows" id="import-failures">
      {imp.counts.failed === 0 ? (
        <EmptyState title="No failed rows">
          {imp.status === 'completed' ? 'Every row was imported, updated or skipped.' : 'None so far.'}
        </EmptyState>
      ) : (
        <>
          <p className="muted">
            Rows the appliance refused, numbered as a spreadsheet shows the file (the header is row 1). The first 1,000
            are kept.
          </p>
          <ErrorMessage error={failures.error} />
          {failures.isLoading ? (
            <Loading />
          ) : (
            <DataTable
              caption="Failed rows"
              rows={rows}
              rowKey={(row) => String(row.row)}
              columns={[
                { header: 'Row', className: 'num', cell: (row) => row.row },
                {
                  header: 'Email',
                  cell: (row) =>
                    row.email ? <span className="break-all">{row.email}</span> : <span className="muted">—</span>,
                },
                { header: 'Reason', cell: (row) => row.reason },
              ]}
            />
          )}
          <Pager
            hasPrevious={cursors.length > 0}
            hasNext={Boolean(failures.data?.has_more) && rows.length > 0}
            onPrevious={() => setCursors((list) => list.slice(0, -1))}
            onNext={() => {
              const last = rows.at(-1);
              if (last) setCursors((list) => [...list, last.row]);
            }}
          />
        </>
      )}
    </Card>
  );
}
