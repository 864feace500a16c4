import { useQueries, useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api, type List } from '../../api/client';
import { useCursorList } from '../../api/list';
import { Link, useSearchParam } from '../../router';
import { Badge } from '../../ui/badge';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField, TextField } from '../../ui/field';
import { Card, EmptyState, Loading } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { LabelChips } from './label-chip';
import { FOLDER_WORDS, FOLDERS, inboxPath, type Folder, type Label, type ThreadItem } from './inbox-types';

/** Unread threads of each folder, counted up to one page (100): "100+" beyond. */
function useUnreadCounts(inboxId: string) {
  const path = `${inboxPath(inboxId)}/threads`;
  const results = useQueries({
    queries: FOLDERS.map((folder) => ({
      queryKey: [path, 'unread', folder],
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        api.get<List<ThreadItem>>(path, { query: { folders: folder, read: false, limit: 100 }, signal }),
      refetchInterval: 30_000,
    })),
  });
  return (folder: Folder) => {
    const data = results[FOLDERS.indexOf(folder)]?.data;
    if (!data || data.data.length === 0) return null;
    return data.has_more ? `${data.data.length}+` : String(data.data.length);
  };
}

/** The folders of an inbox, its threads in the chosen one (or a search), newest activity first. */
export function ThreadsTab({ inboxId }: { inboxId: string }) {
  const [folderParam, setFolder] = useSearchParam('folder');
  const [q, setQ] = useSearchParam('q');
  const [labelFilter, setLabelFilter] = useSearchParam('label');
  const [search, setSearch] = useState(q);
  useEffect(() => setSearch(q), [q]);
  const folder: Folder = (FOLDERS as readonly string[]).includes(folderParam) ? (folderParam as Folder) : 'inbox';
  const unread = useUnreadCounts(inboxId);
  const labels = useQuery({
    queryKey: [`${inboxPath(inboxId)}/labels`],
    queryFn: ({ signal }) => api.get<List<Label>>(`${inboxPath(inboxId)}/labels`, { signal }),
  });
  const base = `${inboxPath(inboxId)}/threads`;
  const list = useCursorList<ThreadItem>(
    q ? `${base}/search` : base,
    { folders: folder, labels: labelFilter || undefined, query: q || undefined },
    { refetchInterval: 15_000 },
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setQ(search.trim());
  };
  const filtered = Boolean(q || labelFilter);
  return (
    <div className="inbox-layout">
      <nav aria-label="Folders">
        <ul className="folder-list">
          {FOLDERS.map((name) => {
            const count = unread(name);
            return (
              <li key={name}>
                <a
                  className="nav-link"
                  href={`?folder=${name}`}
                  aria-current={name === folder ? 'page' : undefined}
                  onClick={(event) => {
                    event.preventDefault();
                    setFolder(name === 'inbox' ? null : name);
                  }}
                >
                  <span>{FOLDER_WORDS[name]}</span>
                  {count ? (
                    <Badge tone="info">
                      {count}
                      <span className="visually-hidden"> unread</span>
                    </Badge>
                  ) : null}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      <div className="stack">
        <form className="filters" role="search" aria-label="Search threads" onSubmit={submit}>
          <TextField
            label="Search subject or addresses"
            type="search"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            error={fieldError(list.error, 'query')}
          />
          <Button type="submit">Search</Button>
          <SelectField
            label="Label"
            value={labelFilter}
            onChange={(event) => setLabelFilter(event.target.value || null)}
            options={[
              { value: '', label: 'Any label' },
              ...(labels.data?.data ?? []).map((label) => ({ value: label.id, label: label.name })),
            ]}
          />
          {filtered ? (
            <Button
              variant="ghost"
              onClick={() => {
                setQ(null);
                setLabelFilter(null);
              }}
            >
              Clear filters
            </Button>
          ) : null}
        </form>
        <ErrorMessage error={list.error} />
        <Card title={FOLDER_WORDS[folder]} id="threads">
          {list.isLoading ? (
            <Loading label="Loading threads…" />
          ) : (
            <DataTable
              caption={`Threads in ${FOLDER_WORDS[folder]}`}
              rows={list.rows}
              rowKey={(thread) => thread.id}
              empty={
                list.error ? null : filtered ? (
                  <EmptyState title="No thread matches" />
                ) : (
                  <EmptyState title={`Nothing in ${FOLDER_WORDS[folder]}`}>
                    {folder === 'inbox' ? <p>Mail sent to this inbox’s address starts a thread here.</p> : null}
                  </EmptyState>
                )
              }
              columns={threadColumns(inboxId)}
            />
          )}
          <ListPager list={list} />
        </Card>
      </div>
    </div>
  );
}

function threadColumns(inboxId: string) {
  const bold = (thread: ThreadItem) => (thread.read ? undefined : 'thread-unread');
  return [
    {
      header: 'From',
      className: 'wrap-anywhere',
      cell: (thread: ThreadItem) => (
        <span className={bold(thread)}>{thread.from ?? <span className="muted">—</span>}</span>
      ),
    },
    {
      header: 'Subject',
      cell: (thread: ThreadItem) => (
        <div className={`thread-subject ${bold(thread) ?? ''}`}>
          {thread.read ? null : <span className="visually-hidden">Unread: </span>}
          <Link to={`/inboxes/${inboxId}/threads/${thread.id}`}>{thread.subject || '(no subject)'}</Link>
          {thread.email_count > 1 ? <span className="muted"> ({thread.email_count})</span> : null}
          {thread.has_draft ? (
            <>
              {' '}
              <Badge tone="warn">draft</Badge>
            </>
          ) : null}
          {thread.has_attachment ? <span className="muted"> · attachment</span> : null}
          <LabelChips labels={thread.labels} />
        </div>
      ),
    },
    {
      header: 'Assignee',
      className: 'wrap-anywhere',
      cell: (thread: ThreadItem) => thread.assignee_email ?? <span className="muted">Unassigned</span>,
    },
    {
      header: 'Last activity',
      className: 'nowrap',
      cell: (thread: ThreadItem) => <Time value={thread.received_at} />,
    },
  ];
}
