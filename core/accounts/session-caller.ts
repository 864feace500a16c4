import type { Caller } from '../platform/auth/caller.js';
import { InvalidPermissionError, SuspendedApiKeyError } from '../../lib/errors.js';
import { SESSION_ABSOLUTE_MS, type SessionCaller } from './account.types.js';

/**
 * A signed-in person calling the API's key routes from the dashboard, as the one Caller type
 * the services know: acting in the session's current team with full_access, like a full_access
 * key, except where a rule asks for a team admin (isTeamAdmin reads `member.role`). The key it
 * carries stands for the session: its id is the session's, so request logs and emails record
 * which session acted, and it has no scopes (scopes are for OAuth tokens).
 */
export function sessionAsCaller(session: SessionCaller): Caller {
  const { team, role } = session;
  if (!team || !role) throw new InvalidPermissionError('The session has no current team: switch to a team first');
  if (team.riskState === 'suspended') throw new SuspendedApiKeyError('This team is suspended');
  return {
    team,
    apiKey: {
      ...{ id: session.sessionId, teamId: team.id, name: `Dashboard session of ${session.user.email}` },
      ...{ permission: 'full_access', domainId: null, keyPrefix: 'session', status: 'active' },
      ...{ createdAt: new Date(session.expiresAt.getTime() - SESSION_ABSOLUTE_MS), lastUsedAt: null },
      lastUsedRequestLogId: null,
    },
    scopes: null,
    member: { userId: session.user.id, role, email: session.user.email },
  };
}
