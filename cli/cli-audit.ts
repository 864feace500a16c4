import type { Knex } from 'knex';
import { userInfo } from 'node:os';
import type { AuditActor, AuditMetadata } from '../core/platform/audit/audit.types.js';
import type { Services } from '../app/services.js';

/** An operator at the server's shell: the audit log names the system account that ran the command. */
function cliActor(): AuditActor {
  let account = 'unknown';
  try {
    account = userInfo().username;
  } catch {
    // No passwd entry (a container's arbitrary uid): the command still ran.
  }
  return { type: 'operator', id: null, name: `mailroom CLI (${account})` };
}

/**
 * Records an operator command's change in the team's audit log, from no address (the shell), in
 * the command's transaction: the change and its entry commit together or not at all.
 */
export async function auditCli(
  services: Pick<Services, 'audit'>,
  trx: Knex,
  teamId: string,
  action: string,
  resource: { type: string; id: string | null },
  metadata?: AuditMetadata,
): Promise<void> {
  await services.audit.record(
    { teamId, actor: cliActor(), action, resource, ...(metadata ? { metadata } : {}) },
    { ip: null, userAgent: 'mailroom CLI' },
    trx,
  );
}
