import { useAdminOnly } from '../../api/session';
import { Link } from '../../router';
import { StatusBadge } from '../../ui/badge';
import { Card } from '../../ui/page';
import type { Team } from './team-query';
import { STATUS_WORDS } from './sso-types';

/** The way to the Single sign-on page from the team's settings, with where it stands (team.sso). */
export function SsoSummaryCard({ team }: { team: Team }) {
  const notAdmin = useAdminOnly();
  const sso = team.sso ?? null;
  return (
    <Card
      title="Single sign-on"
      id="team-sso"
      actions={
        sso ? <StatusBadge status={STATUS_WORDS[sso.status].tone}>{STATUS_WORDS[sso.status].label}</StatusBadge> : null
      }
    >
      <p className="muted">
        {sso
          ? `Through ${sso.issuer} for ${sso.domains.join(', ') || 'no domain yet'}${sso.enforced ? ', enforced' : ''}.`
          : 'People of your verified domains can sign in through your identity provider (OpenID Connect).'}
      </p>
      {notAdmin ? (
        <p className="muted">A team owner or admin sets it up.</p>
      ) : (
        <Link to="/team/sso">{sso ? 'Manage single sign-on' : 'Set up single sign-on'}</Link>
      )}
    </Card>
  );
}
