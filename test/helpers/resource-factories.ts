import type { TestApp } from './test-app.js';
import { sendEmailSchema } from '../../core/sending/emails/email.schemas.js';
import { uploadImport } from './contact-imports.js';
import { request } from './http.js';
import { receiveMessage, receivingDomain } from './received-mail.js';
import { markedVerifiedDomain } from './verified-domain.js';

/**
 * How to make one resource of each kind a route's `isolation` names, inside a given team.
 * A route naming a kind missing here fails the tenant-isolation test: add its factory.
 */
export const resourceFactories: Record<
  string,
  (app: TestApp, team: { teamId: string; token: string }) => Promise<string>
> = {
  api_key: async (app, team) =>
    (await app.runtime.services.apiKeys.create(team.teamId, { name: 'victim', permission: 'full_access' })).id,
  domain: async (app, team) => {
    const res = await request(app.url, '/domains', {
      method: 'POST',
      token: team.token,
      body: { name: `victim-${Date.now()}-${Math.random().toString(36).slice(2, 6)}.test` },
    });
    return res.body.id;
  },
  suppression: async (app, team) =>
    (
      await app.runtime.services.suppressions.add(
        team.teamId,
        `victim-${Math.random().toString(36).slice(2, 8)}@example.com`,
      )
    ).id,
  template: async (app, team) =>
    (await app.runtime.services.templates.create(team.teamId, { name: 'victim', html: '<p>x</p>' })).id,
  email: async (app, team) => {
    // A verified domain without DNS (the isolation test runs none).
    const name = `victim-${Math.random().toString(36).slice(2, 8)}.test`;
    await markedVerifiedDomain(app, team.teamId, name);
    const auth = await app.runtime.services.apiKeys.authenticate(team.token);
    return (
      await app.runtime.services.emailAcceptance.accept(
        auth,
        sendEmailSchema.parse({ from: `a@${name}`, to: 'x@example.net', subject: 's', text: 't' }),
      )
    ).id;
  },
  // An IP literal outside the refused ranges (TEST-NET-1): no DNS, and nothing is ever sent to it.
  webhook: async (app, team) =>
    (
      await app.runtime.services.webhooks.create(await app.runtime.services.teams.get(team.teamId), {
        endpoint: 'https://93.184.216.10/hook',
        events: ['email.sent'],
      })
    ).endpoint.id,
  received_email: async (app, team) => {
    const domain = await receivingDomain(app, team.teamId);
    const raw = `From: a@sender.test\r\nTo: in@${domain}\r\nSubject: victim\r\n\r\nhello\r\n`;
    return (await receiveMessage(app, { from: 'a@sender.test', to: [`in@${domain}`], raw })).received[0]!.id;
  },
  inbox: async (app, team) => {
    const domain = await receivingDomain(app, team.teamId);
    return (
      await request(app.url, '/inboxes', {
        method: 'POST',
        token: team.token,
        body: { email_address: `victim@${domain}` },
      })
    ).body.id;
  },
  audit_log: async (app, team) =>
    app.runtime.services.audit.record({
      teamId: team.teamId,
      actor: { type: 'system', id: null, name: 'Mailroom' },
      action: 'team.updated',
      resource: { type: 'team', id: team.teamId },
    }),
  team_member: async (app, team) => {
    const email = `victim-${Math.random().toString(36).slice(2, 8)}@example.com`;
    await app.runtime.services.accounts.createByOperator({ email, teamId: team.teamId, role: 'member' });
    return (await app.runtime.services.teams.members(team.teamId)).find((member) => member.email === email)!.id;
  },
  log: async (app, team) => {
    await request(app.url, '/team', { token: team.token });
    return (await request(app.url, '/logs?limit=1', { token: team.token })).body.data[0].id;
  },
  contact: async (app, team) =>
    (
      await request(app.url, '/contacts', {
        method: 'POST',
        token: team.token,
        body: { email: `victim-${Math.random().toString(36).slice(2, 8)}@example.com` },
      })
    ).body.id,
  contact_property: async (app, team) =>
    (
      await request(app.url, '/contact-properties', {
        method: 'POST',
        token: team.token,
        body: { key: `victim_${Math.random().toString(36).slice(2, 8)}`, type: 'string' },
      })
    ).body.id,
  topic: async (app, team) =>
    (
      await request(app.url, '/topics', {
        method: 'POST',
        token: team.token,
        body: { name: `victim ${Math.random().toString(36).slice(2, 8)}`, default_subscription: 'opt_in' },
      })
    ).body.id,
  contact_import: async (app, team) =>
    (await uploadImport(app, team.token, `email\nvictim-${Math.random().toString(36).slice(2, 8)}@example.com\n`)).body
      .id,
  segment: async (app, team) =>
    (
      await request(app.url, '/segments', {
        method: 'POST',
        token: team.token,
        body: { name: `victim ${Math.random().toString(36).slice(2, 8)}`, filter: null },
      })
    ).body.id,
  broadcast: async (app, team) =>
    (
      await request(app.url, '/broadcasts', {
        method: 'POST',
        token: team.token,
        body: { from: 'Victim <news@victim.test>', subject: 'Victim', text: 'x' },
      })
    ).body.id,
  custom_event: async (app, team) =>
    (
      await request(app.url, '/events', {
        method: 'POST',
        token: team.token,
        body: { name: `victim.${Math.random().toString(36).slice(2, 8)}`, schema: { plan: 'string' } },
      })
    ).body.id,
  automation: async (app, team) =>
    (
      await request(app.url, '/automations', {
        method: 'POST',
        token: team.token,
        body: {
          name: 'victim',
          steps: [
            { key: 'start', type: 'trigger', config: { event_name: 'svc:contact.created' } },
            { key: 'wait', type: 'delay', config: { duration: '1 day' } },
          ],
          connections: [{ from: 'start', to: 'wait' }],
        },
      })
    ).body.id,
  oauth_grant: async (app, team) => {
    const { oauthClients, oauthTokens } = app.runtime.services;
    const redirectUri = 'http://127.0.0.1:7777/callback';
    const { client } = await oauthClients.register(
      { client_name: 'victim', redirect_uris: [redirectUri] },
      '192.0.2.1',
    );
    const { grantId } = await oauthTokens.issueCode({
      ...{ clientId: client.id, teamId: team.teamId, userId: null, scopes: ['team:read'], redirectUri },
      ...{ codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', resource: null },
    });
    return grantId;
  },
  invitation: async (app, team) => {
    const { accounts, userSessions, invitations } = app.runtime.services;
    const email = `owner-${team.teamId}@example.com`;
    const { user } = await accounts.createByOperator({ email, teamId: team.teamId, role: 'owner' });
    const owner = await userSessions.resolve((await userSessions.issue(user, team.teamId)).token);
    return (await invitations.create(owner!, { email: `invitee-${team.teamId}@example.com`, role: 'member' })).id;
  },
  // A claim needs a name another team verified: a third team holds it (marked verified, no DNS).
  domain_claim: async (app, team) => {
    const name = `claimed-${Math.random().toString(36).slice(2, 8)}.test`;
    const owner = await app.createTeam('Claimed owner', 'unlimited');
    await markedVerifiedDomain(app, owner.teamId, name);
    const res = await request(app.url, '/domains/claim', { method: 'POST', token: team.token, body: { name } });
    return res.body.domain_id;
  },
};
