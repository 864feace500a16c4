import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { apiRoutes } from '../../api/routes/index.js';
import { SCOPE_CATALOGUE } from '../../core/oauth/oauth.scopes.js';
import { AI_TEST_KEY, AI_TEST_MODEL, enableAi } from '../helpers/ai-fixture.js';
import { startBillingApp, type BillingApp } from '../helpers/billing-app.js';
import { errorShape, request } from '../helpers/http.js';
import { startOpenAiDouble } from '../helpers/openai-double.js';
import { approve, discover, exchange, registerClient } from './oauth/oauth-fixture.js';

/**
 * Generated from the spec's credential table ("What each credential reaches on selected areas"):
 * every row is a credential made for real (keys through the service, OAuth tokens through the
 * code flow with exactly the row's scopes), every non-empty cell is asserted on every route of
 * its column, exactly: `200` is a 200, a refusal is its status, `name` and error body. Routes of
 * a column that are not built yet are reported as todo, so the day they are built they are
 * checked. The table is kept in test/fixtures/spec/ (CI has no ../shared); when the spec is
 * beside the repository, the copy must still match it.
 *
 * The appliance has a payment provider (the Stripe double) and an AI provider (the
 * OpenAI-compatible double), and the team has AI assist on: a `200` cell is the route working,
 * not the 503 of an appliance without them.
 */
const here = dirname(fileURLToPath(import.meta.url));
const vendored = readFileSync(join(here, '../fixtures/spec/credential-table.md'), 'utf8');
const specPath = join(here, '../../../shared/spec/api-1-platform-sending-account.md');

t.test(
  'the vendored table is the spec’s',
  { skip: !existsSync(specPath) && 'the spec is not beside the repository' },
  async (t) => {
    t.ok(readFileSync(specPath, 'utf8').includes(vendored.trim()), 'test/fixtures/spec/credential-table.md is current');
  },
);

/**
 * A call in a column: the request, with a body that passes validation so only the credential
 * decides; `prepare` puts the team in the state the route works in (a plan change and an add-on
 * need a subscription; checkout, which needs none, runs before it).
 */
type Call = { method: string; path: string; body?: unknown; prepare?: () => Promise<void> };
const ensureSubscribed = async () => {
  const state = await request(app.url, '/billing', { token: team.token });
  if (state.body.checkout_available) await billing.subscribe(team.token, { plan_code: 'pro' });
};
const COLUMN_CALLS: Record<string, Call[]> = {
  'Other billing routes': [
    { method: 'POST', path: '/billing/checkout', body: { plan_code: 'pro' } },
    { method: 'POST', path: '/billing/portal' },
    { method: 'POST', path: '/billing/plan', body: { plan_code: 'scale' }, prepare: ensureSubscribed },
    {
      method: 'POST',
      path: '/billing/addons',
      body: { addon_code: 'inbox_seat', quantity: 1 },
      prepare: ensureSubscribed,
    },
  ],
  'AI routes': [
    { method: 'POST', path: '/ai/subject-lines', body: { subject: 'Hello' } },
    { method: 'POST', path: '/ai/draft', body: { brief: 'A welcome email' } },
  ],
  // AI is configured here, so `true` works (and leaves AI assist on for the AI column).
  'PATCH /team': [{ method: 'PATCH', path: '/team', body: { ai_assist_enabled: true } }],
};

/** The calls of a column header: named ones ("GET /team", "Billing reads (GET /billing, ...)") or the list above. */
function callsOf(header: string): Call[] {
  if (COLUMN_CALLS[header]) return COLUMN_CALLS[header];
  const named = [...header.matchAll(/\b(GET|POST|PATCH|PUT|DELETE) (\/[\w/{}-]+)/g)];
  if (named.length === 0) throw new Error(`no calls known for the column "${header}"`);
  return named.map(([, method, path]) => ({ method: method!, path: path! }));
}

/** The scopes of an OAuth row ("OAuth token with team:read only", "... with every scope", "... without ai:use"). */
function scopesOf(label: string): string[] {
  if (/with every scope/.test(label)) return [...SCOPE_CATALOGUE];
  const without = /without (\S+)/.exec(label);
  if (without) return SCOPE_CATALOGUE.filter((scope) => scope !== without[1]);
  const named = /with (\S+)/.exec(label);
  if (!named) throw new Error(`cannot read the scopes of "${label}"`);
  return [named[1]!];
}

const rows = vendored
  .split('\n')
  .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line))
  .map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );
const [header, ...body] = rows;
t.ok(header && body.length >= 8, 'the table has its header and rows');

const built = new Set(apiRoutes('test').map((route) => `${route.method} ${route.path}`));
const isBuilt = (call: Call) => built.has(`${call.method} ${call.path}`);

const ai = await startOpenAiDouble();
const billing: BillingApp = await startBillingApp({
  config: { ai: { provider: 'openai-compatible', baseUrl: ai.baseUrl, model: AI_TEST_MODEL, timeoutMs: 5_000 } },
  env: { MAILROOM_AI_API_KEY: AI_TEST_KEY },
});
t.teardown(async () => {
  await billing.close();
  await ai.close();
});
const { app } = billing;
const team = await app.createTeam('Credential table', 'free');
await enableAi(app, team.token);
const as = await discover(app);
const client = await registerClient(as, { scope: SCOPE_CATALOGUE.join(' ') });
const sending = await app.runtime.services.apiKeys.create(team.teamId, {
  name: 'sender',
  permission: 'sending_access',
});

async function credentialFor(label: string): Promise<string> {
  if (label === 'full_access') return team.token;
  if (label === 'sending_access') return sending.token;
  const tokens = await exchange(as, client, await approve(app, as, client, team.teamId, scopesOf(label)));
  return tokens.access_token;
}

for (const row of body) {
  const [label, ...cells] = row;
  t.test(label!, async (t) => {
    const token = await credentialFor(label!);
    for (const [index, cell] of cells.entries()) {
      if (cell === '') continue;
      for (const call of callsOf(header![index + 1]!)) {
        const what = `${call.method} ${call.path}: ${cell}`;
        if (!isBuilt(call)) {
          t.todo(`${what} (the route is not built yet)`, async () => {});
          continue;
        }
        if (label === 'full_access') await call.prepare?.();
        const response = await request(app.url, call.path, { method: call.method, token, body: call.body });
        const [status, name] = cell.split(' ');
        if (name) errorShape(t, response, Number(status), name);
        else t.equal(response.status, Number(status), what);
      }
    }
  });
}

t.test('the rules under the table', async (t) => {
  const every = await credentialFor('OAuth token with every scope');
  const rename = { method: 'PATCH', token: every, body: { name: 'Renamed by a token' } };
  errorShape(t, await request(app.url, '/team', rename), 403, 'invalid_permission');
  for (const path of ['/team/members', '/logs', '/api-keys', '/oauth/grants'])
    errorShape(t, await request(app.url, path, { token: every }), 403, 'invalid_permission');
  for (const path of ['/logs', '/api-keys'])
    errorShape(t, await request(app.url, path, { token: sending.token }), 401, 'restricted_api_key');
});
