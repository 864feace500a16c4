import { request, type HttpResponse, type RequestOptions } from './http.js';
import type { TestApp } from './test-app.js';

/** The `name=value` of the session cookie a response set, for the next request's Cookie header. */
export function sessionCookieOf(response: HttpResponse): string {
  const header = response.headers.get('set-cookie') ?? '';
  const match = /mailroom_session=([^;]*)/.exec(header);
  if (!match || !match[1]) throw new Error(`no session cookie in: ${header}`);
  return `mailroom_session=${match[1]}`;
}

/** A request carrying the session cookie and, for writes, the appliance's own Origin (a browser's). */
export function asBrowser(app: TestApp, path: string, cookie: string | null, options: RequestOptions = {}) {
  const headers: Record<string, string> = { origin: new URL(app.url).origin, ...options.headers };
  if (cookie) headers.cookie = cookie;
  return request(app.url, path, { ...options, headers });
}

export async function signup(app: TestApp, email: string, password = 'correct horse', name?: string) {
  const response = await asBrowser(app, '/auth/signup', null, {
    method: 'POST',
    body: { email, password, ...(name ? { name } : {}) },
  });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${response.text}`);
  return { response, cookie: sessionCookieOf(response), user: response.body.user as { id: string; email: string } };
}

export function login(app: TestApp, email: string, password: string) {
  return asBrowser(app, '/auth/login', null, { method: 'POST', body: { email, password } });
}

/**
 * Links the appliance logs when no account mail sender is configured: the test replaces the
 * process logger's `info` (silent in tests) to read them. Returns the tokens by kind, newest last.
 */
export function captureAccountLinks(app: TestApp) {
  const links: Array<{ kind: string; to: string; link: string; token: string }> = [];
  const logger = app.runtime.logger as unknown as { info: (...args: unknown[]) => void };
  const original = logger.info;
  logger.info = (entry: unknown, ...rest: unknown[]) => {
    const e = entry as { kind?: string; to?: string; link?: string };
    if (e && typeof e === 'object' && e.link && e.kind) {
      const token = new URL(e.link).searchParams.get('token')!;
      links.push({ kind: e.kind, to: e.to!, link: e.link, token });
    }
    return original.call(logger, entry, ...rest);
  };
  return {
    links,
    last(kind: string, to: string) {
      const found = links.filter((l) => l.kind === kind && l.to === to).at(-1);
      if (!found) throw new Error(`no ${kind} link for ${to}`);
      return found.token;
    },
    restore: () => void (logger.info = original),
  };
}

/**
 * A signed-in person in an existing team (made as `mailroom user create` makes them), as the
 * Cookie header of their session: for tests about what a role or a team's session reaches.
 */
export async function sessionInTeam(app: TestApp, email: string, teamId: string, role: 'owner' | 'admin' | 'member') {
  const { user } = await app.runtime.services.accounts.createByOperator({ email, teamId, role });
  const issued = await app.runtime.services.userSessions.issue(user, teamId);
  return `mailroom_session=${issued.token}`;
}
