import type { ReactNode } from 'react';
import { useRole, useSession } from '../api/session';
import { Link } from '../router';
import { Loading } from '../ui/page';
import { NAV } from '../routes';
import { OPERATOR_HOME, useOperatorRedirect } from '../pages/admin/use-operator';
import { TeamSwitcher } from './team-switcher';
import { UserMenu } from './user-menu';

/** The navigation group of the operator console's pages (routes.tsx). */
const OPERATOR_GROUP = 'Operator';

/** The signed-in frame: a skip link, the navigation (marking where you are), the page. */
export function Shell({ nav, children }: { nav: string | null; children: ReactNode }) {
  const session = useSession();
  // An operator runs the appliance and has no team: the console's navigation replaces the team's
  // (a team user never sees the operator entries; the admin API refuses them anyway).
  const { operator, mfaMissing, leaving } = useOperatorRedirect(nav);
  const role = useRole();
  const admin = role === 'owner' || role === 'admin';
  const items = NAV.filter((item) => (item.group === OPERATOR_GROUP) === operator && (!item.adminOnly || admin));
  const groups = [...new Set(items.map((item) => item.group))];
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <Link
          to={operator ? OPERATOR_HOME : '/emails'}
          className="brand"
          aria-label={operator ? 'Mailroom, operator console' : 'Mailroom, emails'}
        >
          <span className="brand-mark" aria-hidden="true">
            ✉
          </span>{' '}
          Mailroom
        </Link>
        {operator ? (
          <p className="team-name" title="You run this appliance">
            Operator console
          </p>
        ) : (
          <TeamSwitcher />
        )}
        <nav aria-label={operator ? 'Operator console' : 'Dashboard'}>
          {groups.map((group) => (
            <div key={group} className="nav-group">
              <h2 className="nav-group-title">{group}</h2>
              <ul>
                {items
                  .filter((item) => item.group === group)
                  .map((item) => (
                    <li key={item.id}>
                      <Link to={item.to} className="nav-link" aria-current={item.id === nav ? 'page' : undefined}>
                        {item.label}
                      </Link>
                    </li>
                  ))}
              </ul>
            </div>
          ))}
        </nav>
        <UserMenu current={nav === 'account'} />
      </aside>
      <main className="main" id="main" tabIndex={-1}>
        {mfaMissing ? (
          <div className="alert alert-warn" role="status">
            Operator accounts must use two-factor authentication: set it up below to open the operator console.
          </div>
        ) : null}
        {session.data && !session.data.current_team && !operator ? (
          <div className="alert alert-warn" role="status">
            You are not in a team yet. Ask a team owner for an invitation, or an operator to create a team (
            <code>mailroom team create</code>).
          </div>
        ) : null}
        {leaving ? <Loading /> : children}
      </main>
    </div>
  );
}
