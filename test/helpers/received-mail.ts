import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSpoolRef } from '../../lib/spool/spool-ref-text.js';
import { createDomainSchema } from '../../core/sending/domains/domain.schemas.js';
import type { TestApp } from './test-app.js';

/**
 * A receiving domain of the team, enabled and with its MX record marked found (the tests that
 * use this run no DNS for it): what the inbound MX accepts mail for.
 */
export async function receivingDomain(app: TestApp, teamId: string, name?: string): Promise<string> {
  const domainName = name ?? `in-${Math.random().toString(36).slice(2, 8)}.test`;
  const view = await app.runtime.services.domains.create(
    await app.runtime.services.teams.get(teamId),
    createDomainSchema.parse({
      name: domainName,
      region: 'us-east-1',
      capabilities: { sending: 'enabled', receiving: 'enabled' },
      confirm_replace_mx: true,
    }),
  );
  await app.runtime.db
    .knex('domains')
    .where({ id: view.domain.id })
    .update({ status: 'verified', record_statuses: JSON.stringify({ receiving_mx: 'verified' }) });
  app.runtime.services.lookupCache.invalidate();
  return domainName;
}

/** A message as the MX hands it over, through the same intake (spool, rows, events). */
export async function receiveMessage(
  app: TestApp,
  message: { from: string; to: string[]; raw: string | Buffer },
): Promise<ReturnType<TestApp['runtime']['services']['inboundIntake']['accept']>> {
  return app.runtime.services.inboundIntake.accept(
    { mailFrom: message.from, recipients: message.to, remoteIp: '127.0.0.1', helo: 'client.test', tls: false },
    Buffer.isBuffer(message.raw) ? message.raw : Buffer.from(message.raw),
  );
}

/**
 * The raw message a received email's `raw_blob` refers to, read from disk as a restart would
 * find it: a spool record (`spool:<segment>:<offset>:<length>`) or, for mail stored before
 * issue 37, a file of the blob store. null when it is not there (or shorter than the reference).
 */
export function storedRaw(dataDir: string, rawBlob: string): Buffer | null {
  const record = parseSpoolRef(rawBlob);
  const path = record ? join(dataDir, 'spool', record.segment) : join(dataDir, 'received', rawBlob);
  if (!existsSync(path)) return null;
  const bytes = readFileSync(path);
  if (!record) return bytes;
  return bytes.length >= record.offset + record.length
    ? bytes.subarray(record.offset, record.offset + record.length)
    : null;
}
