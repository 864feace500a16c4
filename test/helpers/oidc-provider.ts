import { createSign, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type KoaContext } from 'oidc-provider';

/** A person the provider knows: what its ID token says about their address. */
export type OidcAccount = { email: string; emailVerified: boolean; name?: string };

/**
 * How the next token responses' ID tokens are re-signed (with the provider's own key, so the
 * signature is good unless `foreignKey`): a provider issuing for another audience, an ID token
 * already expired, or one signed by a key the provider does not publish.
 */
export type Tamper = { aud?: string; expiredSecondsAgo?: number; foreignKey?: boolean };

export type TestOidcProvider = {
  /** http://127.0.0.1:<port>: a loopback issuer (the appliance allows plain http only there). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, OidcAccount>;
  tamper: Tamper | null;
  /** Token responses the provider answered (the tests count round trips). */
  tokenRequests: number;
  /**
   * Plays the person at the provider: opens the authorization URL, signs in as `accountId` on
   * the provider's (development) login form, and returns the URL the provider redirects the
   * browser to: the appliance's callback with code, state and iss.
   */
  signIn(authorizationUrl: string, accountId: string): Promise<URL>;
  close(): Promise<void>;
};

/**
 * A real OpenID provider (oidc-provider) on loopback, with one confidential client for the
 * appliance: PKCE required, redirect URI the appliance's callback, scopes openid email profile,
 * the email claims in the ID token (as Google, Entra ID, Okta and Keycloak put them there), and
 * consent already given (a first-party app, as an organisation's provider is set up).
 */
export async function startOidcProvider(options: { redirectUri: string }): Promise<TestOidcProvider> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, OidcAccount>();
  const clientId = `mailroom-${randomUUID().slice(0, 8)}`;
  const clientSecret = `secret-${randomUUID()}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: [randomUUID()] },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: false,
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    features: { devInteractions: { enabled: true } },
    findAccount: async (_ctx: unknown, id: string) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: async () => ({
          sub: id,
          email: account.email,
          email_verified: account.emailVerified,
          ...(account.name ? { name: account.name } : {}),
        }),
      };
    },
    loadExistingGrant: async (ctx: KoaContext) => {
      const { client, session, provider: p } = ctx.oidc;
      const existing = ctx.oidc.result?.consent?.grantId ?? session!.grantIdFor(client!.clientId);
      if (existing) return p.Grant.find(existing);
      const grant = new p.Grant({ clientId: client!.clientId, accountId: session!.accountId! });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const state: TestOidcProvider = {
    issuer,
    clientId,
    clientSecret,
    accounts,
    tamper: null,
    tokenRequests: 0,
    signIn: (url, accountId) => playUser(issuer, url, accountId),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path !== '/token' || ctx.method !== 'POST') return;
    state.tokenRequests += 1;
    const body = ctx.body as { id_token?: string } | undefined;
    if (state.tamper && body?.id_token) body.id_token = resign(body.id_token, state.tamper, privateKey, kid);
  });
  server.on('request', provider.callback());
  return state;
}

/** The ID token with the tampered claims, signed RS256 (with a stranger's key when asked). */
function resign(idToken: string, tamper: Tamper, key: KeyObject, kid: string): string {
  const payload = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString('utf8'));
  if (tamper.aud) payload.aud = tamper.aud;
  if (tamper.expiredSecondsAgo) {
    const now = Math.floor(Date.now() / 1000);
    payload.exp = now - tamper.expiredSecondsAgo;
    payload.iat = payload.exp - 3600;
  }
  const signingKey = tamper.foreignKey ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey : key;
  const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid })).toString('base64url');
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const signature = createSign('RSA-SHA256').update(`${header}.${body}`).sign(signingKey).toString('base64url');
  return `${header}.${body}.${signature}`;
}

/**
 * A browser at the provider: follows its redirects with its cookies, answers the login form
 * (devInteractions: POST prompt=login, login=<account>) and, if asked, the consent form, until
 * the provider sends the browser away from itself (to the appliance's callback).
 */
async function playUser(issuer: string, authorizationUrl: string, accountId: string): Promise<URL> {
  const jar = new Map<string, string>();
  const send = async (url: URL, init: RequestInit = {}) => {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, cookie } });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return res;
  };
  let url = new URL(authorizationUrl);
  for (let step = 0; step < 10; step += 1) {
    if (url.origin !== new URL(issuer).origin) return url;
    const res = await send(url);
    const location = res.headers.get('location');
    if (location) {
      url = new URL(location, url);
      continue;
    }
    const html = await res.text();
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (!prompt) throw new Error(`the provider answered ${res.status} without a form: ${html.slice(0, 300)}`);
    const form = new URLSearchParams({ prompt, ...(prompt === 'login' ? { login: accountId, password: 'any' } : {}) });
    const posted = await send(url, {
      method: 'POST',
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    url = new URL(posted.headers.get('location') ?? url.href, url);
  }
  throw new Error('the provider did not send the browser back');
}
