import { useCursorList } from '../../api/list';
import { StatusBadge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading } from '../../ui/page';
import { ListPager } from '../../ui/pager';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';
import { ssoErrorText, ssoSignInsPath, type SsoSignIn } from './sso-types';

const OUTCOMES: Record<SsoSignIn['outcome'], { label: string; tone: string }> = {
  signed_in: { label: 'Signed in', tone: 'succeeded' },
  joined: { label: 'Joined the team', tone: 'active' },
  tested: { label: 'Test', tone: 'queued' },
  failed: { label: 'Failed', tone: 'failed' },
};

/** Who signed in through the provider (GET /team/sso/sign-ins), newest first. */
export function SsoSignInsCard() {
  const list = useCursorList<SsoSignIn>(ssoSignInsPath, {}, { limit: 20 });
  return (
    <Card title="Sign-ins with single sign-on" id="sso-sign-ins">
      <ErrorMessage error={list.error} />
      {list.isLoading ? <Loading /> : null}
      {list.isEmpty ? (
        <EmptyState title="Nobody has signed in with single sign-on yet">
          Tests and sign-ins through the provider are listed here.
        </EmptyState>
      ) : null}
      {list.rows.length > 0 ? (
        <DataTable
          caption="Sign-ins with single sign-on, newest first"
          rows={list.rows}
          rowKey={(row) => row.id}
          columns={[
            {
              header: 'Person',
              cell: (row) => (
                <>
                  {row.name ? <strong>{row.name}</strong> : null}
                  <div className={row.name ? 'muted' : undefined}>{row.email ?? '—'}</div>
                </>
              ),
            },
            {
              header: 'Outcome',
              cell: (row) => (
                <>
                  <StatusBadge status={OUTCOMES[row.outcome]?.tone ?? row.outcome}>
                    {OUTCOMES[row.outcome]?.label ?? row.outcome}
                  </StatusBadge>
                  {row.error ? <div className="muted">{ssoErrorText(row.error)}</div> : null}
                </>
              ),
            },
            { header: 'When', className: 'nowrap', cell: (row) => <Time value={row.created_at} /> },
          ]}
        />
      ) : null}
      <ListPager list={list} />
    </Card>
  );
}
