import { asBrowser, sessionCookieOf } from '../../helpers/accounts.js';
import { request, type HttpResponse } from '../../helpers/http.js';
import { startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';
import { movableClock, type MovableClock } from '../../helpers/clock.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { markedVerifiedDomain } from '../../helpers/verified-domain.js';

/**
 * An appliance and a real OpenID provider on loopback, and a team on a plan with single sign-on
 * (scale) with a verified domain and a signed-in owner (who also has a password: the recovery path).
 */
export type SsoWorld = {
  app: TestApp;
  /** The appliance's clock (round trips expire by it; ID tokens are checked against real time). */
  clock: MovableClock;
  provider: TestOidcProvider;
  team: { teamId: string; token: string };
  domain: string;
  owner: { email: string; password: string; cookie: string; userId: string };
  /** A person of the team's domain at the provider (id = the provider's account id). */
  person(id: string, email: string, options?: { verified?: boolean; name?: string }): void;
  /** The browser's GET of the callback URL the provider sent it to. */
  callback(url: URL): Promise<HttpResponse>;
  /** PUT, test round trip as `testAccount`, then active (and enforced) through the API as the owner. */
  configure(options?: { enforced?: boolean; testAccount?: string }): Promise<void>;
  /** discover -> provider -> callback: the callback's answer. */
  signInAs(accountId: string, email: string): Promise<HttpResponse>;
  close(): Promise<void>;
};

export const OWNER_PASSWORD = 'owner recovery password';

export async function startSsoWorld(name: string, domain: string): Promise<SsoWorld> {
  const clock = movableClock();
  const app = await startTestApp({ clock });
  const provider = await startOidcProvider({ redirectUri: `${app.url}/auth/sso/callback` });
  const team = await app.createTeam(name, 'scale');
  await markedVerifiedDomain(app, team.teamId, domain);
  const email = `owner@${domain}`;
  const { services } = app.runtime;
  const { user } = await services.accounts.createByOperator({
    ...{ email, teamId: team.teamId, role: 'owner' },
    password: OWNER_PASSWORD,
  });
  const issued = await services.userSessions.issue(user, team.teamId);
  const owner = { email, password: OWNER_PASSWORD, cookie: `mailroom_session=${issued.token}`, userId: user.id };
  const world: SsoWorld = {
    app,
    clock,
    provider,
    team,
    domain,
    owner,
    person(id, address, options = {}) {
      provider.accounts.set(id, { email: address, emailVerified: options.verified ?? true, name: options.name });
    },
    callback: (url) => request(app.url, `${url.pathname}${url.search}`),
    async configure(options = {}) {
      const put = await asBrowser(app, '/team/sso', owner.cookie, {
        method: 'PUT',
        body: {
          issuer: provider.issuer,
          client_id: provider.clientId,
          client_secret: provider.clientSecret,
          domains: [domain],
        },
      });
      if (put.status !== 200) throw new Error(`PUT /team/sso: ${put.status} ${put.text}`);
      const testAccount = options.testAccount ?? 'owner-at-idp';
      world.person(testAccount, email);
      const started = await asBrowser(app, '/team/sso/test', owner.cookie, { method: 'POST' });
      if (started.status !== 200) throw new Error(`POST /team/sso/test: ${started.status} ${started.text}`);
      const back = await world.callback(await provider.signIn(started.body.authorization_url, testAccount));
      if (!String(back.headers.get('location')).endsWith('sso_test=ok'))
        throw new Error(`test: ${back.headers.get('location')}`);
      const patch = await asBrowser(app, '/team/sso', owner.cookie, {
        method: 'PATCH',
        body: { active: true, ...(options.enforced ? { enforced: true } : {}) },
      });
      if (patch.status !== 200) throw new Error(`PATCH /team/sso: ${patch.status} ${patch.text}`);
    },
    async signInAs(accountId, address) {
      const found = await asBrowser(app, '/auth/sso/discover', null, { method: 'POST', body: { email: address } });
      if (found.status !== 200 || !found.body.sso) throw new Error(`discover: ${found.status} ${found.text}`);
      return world.callback(await provider.signIn(found.body.authorization_url, accountId));
    },
    async close() {
      await provider.close();
      await app.close();
    },
  };
  return world;
}

/** The session cookie a signed-in callback set. */
export { sessionCookieOf };
