import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { PageProps } from '../../routes';
import { useSearchParam } from '../../router';
import { ErrorMessage } from '../../ui/error-message';
import { Loading, PageHeader } from '../../ui/page';
import { Tabs } from '../../ui/tabs';
import { DraftsTab } from './drafts-tab';
import { inboxPath, inboxTitle, type InboxDetail } from './inbox-types';
import { LabelsTab } from './labels-tab';
import { SettingsTab } from './settings-tab';
import { ThreadsTab } from './threads-tab';
import './inboxes.css';

/** One shared inbox: its threads by folder, its drafts, its labels, and its agent's settings. */
export default function InboxPage({ params }: PageProps) {
  const id = params.id!;
  const [tab, setTab] = useSearchParam('tab');
  const inbox = useQuery({
    queryKey: [inboxPath(id)],
    queryFn: ({ signal }) => api.get<InboxDetail>(inboxPath(id), { signal }),
    refetchInterval: 30_000,
  });
  const back = { to: '/inboxes', label: 'Inboxes' };
  if (inbox.isLoading) return <Loading label="Loading the inbox…" />;
  const data = inbox.data;
  if (!data)
    return (
      <>
        <PageHeader title="Inbox" back={back} />
        <ErrorMessage error={inbox.error} title="This inbox could not be shown." />
      </>
    );
  return (
    <>
      <PageHeader
        title={inboxTitle(data)}
        back={back}
        description={
          <>
            <code>{data.email_address}</code>
            {data.from_name ? <> · sends as {data.from_name}</> : null} · {data.unread} unread
          </>
        }
      />
      <Tabs
        label="Inbox"
        selected={tab || 'threads'}
        onSelect={(next) => setTab(next === 'threads' ? null : next)}
        tabs={[
          { id: 'threads', label: 'Threads', panel: () => <ThreadsTab inboxId={id} /> },
          {
            id: 'drafts',
            label: data.drafts ? `Drafts (${data.drafts})` : 'Drafts',
            panel: () => <DraftsTab inboxId={id} />,
          },
          { id: 'labels', label: 'Labels', panel: () => <LabelsTab inboxId={id} /> },
          { id: 'settings', label: 'Settings', panel: () => <SettingsTab inbox={data} /> },
        ]}
      />
    </>
  );
}
