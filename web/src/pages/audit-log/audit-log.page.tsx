import { useRole } from '../../api/session';
import { Card, Loading, PageHeader } from '../../ui/page';
import { AuditLogTable } from './audit-log-table';

const TITLE = 'Audit log';
const DESCRIPTION =
  'Who changed what in the team: keys, domains, members, settings and sign-ins, with where the change came from.';

/** The team's audit log (owners and admins: the API refuses a member, who reads why instead). */
export default function AuditLogPage() {
  const role = useRole();
  if (role === null) return <Loading />;
  if (role === 'member')
    return (
      <>
        <PageHeader title={TITLE} description={DESCRIPTION} />
        <Card>
          <p>Only a team owner or admin can read the audit log. Ask one of them.</p>
        </Card>
      </>
    );
  return (
    <>
      <PageHeader title={TITLE} description={DESCRIPTION} />
      <AuditLogTable path="/audit-logs" detailPath="/audit-logs" />
    </>
  );
}
