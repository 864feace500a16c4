import type { Test } from 'tap';
import { request } from './http.js';
import type { TestApp } from './test-app.js';

export type AuditEntryBody = {
  object: 'audit_log';
  id: string;
  action: string;
  actor: { type: string; id: string | null; name: string | null };
  resource: { type: string; id: string | null };
  metadata: Record<string, unknown>;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
};

/** The team's newest entry with `action` (read through GET /audit-logs with the team's full_access key). */
export async function latestEntry(app: TestApp, token: string, action: string): Promise<AuditEntryBody | undefined> {
  const res = await request(app.url, `/audit-logs?action=${encodeURIComponent(action)}&limit=1`, { token });
  if (res.status !== 200) throw new Error(`GET /audit-logs answered ${res.status}: ${res.text}`);
  return (res.body.data as AuditEntryBody[])[0];
}

/** Asserts the newest entry of `action` names `resource` and the expected actor, and returns it. */
export async function expectEntry(
  t: Test,
  app: TestApp,
  token: string,
  action: string,
  expected: {
    resource?: { type?: string; id?: string | null };
    actor?: Partial<AuditEntryBody['actor']>;
    metadata?: object;
  },
): Promise<AuditEntryBody | undefined> {
  const entry = await latestEntry(app, token, action);
  t.ok(entry, `an entry ${action}`);
  if (!entry) return undefined;
  if (expected.resource) t.match(entry.resource, expected.resource, `${action}: resource`);
  if (expected.actor) t.match(entry.actor, expected.actor, `${action}: actor`);
  if (expected.metadata) t.match(entry.metadata, expected.metadata, `${action}: metadata`);
  return entry;
}
