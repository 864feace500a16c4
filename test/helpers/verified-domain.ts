import { createDomainSchema } from '../../core/sending/domains/domain.schemas.js';
import type { TestDnsServer } from './dns-server.js';
import { request } from './http.js';
import type { TestApp } from './test-app.js';

type RecordOut = { record: string; name: string; type: string; value: string; priority?: number };

/** Adds a domain through the API, publishes its sending records in the test DNS, verifies it. */
export async function addVerifiedDomain(
  app: TestApp,
  dns: TestDnsServer,
  token: string,
  name: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  dns.add({ type: 'SOA', name });
  const created = await request(app.url, '/domains', { method: 'POST', token, body: { name, ...body } });
  if (created.status !== 201) throw new Error(`domain ${name} not created: ${created.text}`);
  for (const r of created.body.records as RecordOut[]) {
    const fqdn = r.name === '@' ? name : `${r.name}.${name}`;
    if (r.type === 'TXT') dns.add({ type: 'TXT', name: fqdn, value: r.value });
    if (r.type === 'MX' && r.record === 'SPF')
      dns.add({ type: 'MX', name: fqdn, exchange: r.value, priority: r.priority });
  }
  await request(app.url, `/domains/${created.body.id}/verify`, { method: 'POST', token });
  const status = (await request(app.url, `/domains/${created.body.id}`, { token })).body.status;
  if (status !== 'verified') throw new Error(`domain ${name} is ${status}, not verified`);
  return created.body.id;
}

/**
 * A sending domain of the team marked verified directly, for tests that run no DNS for it, and
 * the team lifted to tier 2 so it may send to anyone.
 */
export async function markedVerifiedDomain(app: TestApp, teamId: string, name: string) {
  const view = await app.runtime.services.domains.create(
    await app.runtime.services.teams.get(teamId),
    createDomainSchema.parse({ name }),
  );
  await app.runtime.db.knex('domains').where({ id: view.domain.id }).update({ status: 'verified' });
  await app.runtime.services.teams.setTier(teamId, 2);
  app.runtime.services.lookupCache.invalidate();
  return view.domain;
}
