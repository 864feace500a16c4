import type { TeamMember } from '../platform/teams/team.types.js';
import { redirectWith, type AuthorizationRequest } from './authorize-request.js';
import type { OAuthAuthorizationService } from './oauth-authorization.service.js';
import { OAuthError } from './oauth.errors.js';
import type { OAuthTokenService } from './oauth-token.service.js';

/** The person answering: who they are and their role in the team the app would act in. */
export type Consenter = { userId: string; teamId: string; role: TeamMember['role'] | null };

/** What an approval connected, for the team's audit log. */
export type ApprovedGrant = { grantId: string; clientId: string; clientName: string; scopes: string[] };

export type ConsentOutcome =
  /** Back to the client: with code and state, or with error=access_denied and state. */
  | { kind: 'redirect'; location: string; granted?: ApprovedGrant }
  /** Expired, unknown or already answered: nothing to redirect to safely. */
  | { kind: 'gone' }
  /** The client was deleted (or its redirect URI removed) since the request: never redirect. */
  | { kind: 'client_gone'; description: string };

/**
 * The consent page's decision (the first row of the spec's OAuth states table): approval issues
 * a code for the signed-in person's current team and redirects with code and state; refusal
 * redirects with error=access_denied. Each parked request takes one answer.
 *
 * Only a team owner or admin may connect an app: a grant acts on the whole team (sending,
 * broadcasts, settings), as a full_access key does, and a plain member cannot create those.
 */
export class OAuthConsentService {
  constructor(private readonly deps: { authorization: OAuthAuthorizationService; tokens: OAuthTokenService }) {}

  mayConnectApps(role: Consenter['role']): boolean {
    return role === 'owner' || role === 'admin';
  }

  async decide(requestId: string, consenter: Consenter, approve: boolean): Promise<ConsentOutcome> {
    if (!this.mayConnectApps(consenter.role)) throw new Error('decide() needs a team owner or admin');
    const request = await this.deps.authorization.answer(requestId);
    if (!request) return { kind: 'gone' };
    if (!approve) return refusal(request);
    try {
      const { code, grantId } = await this.deps.tokens.issueCode({
        ...{ clientId: request.clientId, teamId: consenter.teamId, userId: consenter.userId },
        ...{ scopes: request.scopes, redirectUri: request.redirectUri, codeChallenge: request.codeChallenge },
        resource: request.resource,
      });
      return {
        kind: 'redirect',
        location: redirectWith(request.redirectUri, { code, state: request.state }),
        granted: { grantId, clientId: request.clientId, clientName: request.clientName, scopes: request.scopes },
      };
    } catch (err) {
      if (err instanceof OAuthError) return { kind: 'client_gone', description: err.description };
      throw err;
    }
  }
}

function refusal(request: AuthorizationRequest): ConsentOutcome {
  return {
    kind: 'redirect',
    location: redirectWith(request.redirectUri, {
      error: 'access_denied',
      error_description: 'The person refused the request',
      state: request.state,
    }),
  };
}
