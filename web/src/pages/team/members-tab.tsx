import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import { useSession } from '../../api/session';
import { Badge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, EmptyState, Loading } from '../../ui/page';
import { DataTable } from '../../ui/table';
import { Time } from '../../ui/time';

type Member = {
  object: 'team_member';
  id: string;
  email: string;
  name: string | null;
  role: 'owner' | 'admin' | 'member';
  mfa_enabled: boolean;
  created_at: string;
};

export const ROLE_WORDS: Record<string, string> = {
  owner: 'Owner',
  admin: 'Admin',
  member: 'Member',
};

/** Who is in the team and with which role. The API answers the whole list at once (no paging). */
export function MembersTab() {
  const session = useSession();
  const members = useQuery({
    queryKey: ['team', 'members'],
    queryFn: () => api.get<List<Member>>('/team/members'),
  });
  if (members.isLoading) return <Loading />;
  return (
    <Card title="Members" id="members">
      <p className="muted">
        Owners and admins rename the team and manage invitations; every member can send, read and change the rest.
      </p>
      <ErrorMessage error={members.error} />
      <DataTable
        caption="Team members"
        rows={members.data?.data ?? []}
        rowKey={(member) => member.id}
        empty={<EmptyState title="No members" />}
        columns={[
          {
            header: 'Name',
            cell: (member) => (
              <>
                {member.name ?? <span className="muted">No name</span>}
                {member.email.toLowerCase() === session.data?.user.email.toLowerCase() ? (
                  <span className="muted"> (you)</span>
                ) : null}
              </>
            ),
          },
          { header: 'E-mail', cell: (member) => member.email },
          {
            header: 'Role',
            cell: (member) => (
              <Badge tone={member.role === 'member' ? 'neutral' : 'info'}>
                {ROLE_WORDS[member.role] ?? member.role}
              </Badge>
            ),
          },
          {
            header: 'Two-factor',
            cell: (member) => (member.mfa_enabled ? <Badge tone="good">On</Badge> : <Badge tone="neutral">Off</Badge>),
          },
          { header: 'Joined', cell: (member) => <Time value={member.created_at} />, className: 'nowrap' },
        ]}
      />
    </Card>
  );
}
