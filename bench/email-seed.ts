/**
 * Emails seeded straight into the database for the list benchmarks (bench:emails-list,
 * bench:dashboard): multi-row INSERTs through the repository, as acceptance writes them, ids
 * UUIDv7 made at each email's creation time, SPACING_MS apart up to a minute ago.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { createRuntime } from '../app/runtime.js';
import { EmailRepository } from '../core/sending/emails/email.repository.js';
import type { Email, EmailLastEvent } from '../core/sending/emails/email.types.js';
import { newId } from '../lib/ids.js';

/** Rows per seeding transaction (the repository splits them into INSERTs of 100 rows). */
const SEED_BATCH = 5000;
/** Seconds between two seeded emails: a million span about 58 days. */
export const SPACING_MS = 5000;

/** A realistic mix: mostly delivered, some opened, a few bounced and the rest. */
function lastEventOf(i: number): EmailLastEvent {
  const r = i % 100;
  if (r < 70) return 'delivered';
  if (r < 85) return 'opened';
  if (r < 90) return 'clicked';
  if (r < 95) return 'sent';
  if (r < 98) return 'bounced';
  return r < 99 ? 'complained' : 'failed';
}

function emailAt(teamId: string, domainIds: string[], i: number, createdAt: Date): Email {
  return {
    id: uuidv7({ msecs: createdAt.getTime() }),
    teamId,
    domainId: domainIds[i % domainIds.length]!,
    apiKeyId: null,
    fromHeader: 'Shop <orders@shop.example>',
    fromAddress: 'orders@shop.example',
    to: [`customer${i}@example${i % 50}.net`],
    cc: null,
    bcc: null,
    replyTo: null,
    suppressedRecipients: [],
    subject: `Your order #${i} has shipped`,
    tags: null,
    headers: null,
    templateId: null,
    templateVersionId: null,
    topicId: null,
    broadcastId: null,
    messageId: `<${i}.${teamId}@shop.example>`,
    lastEvent: lastEventOf(i),
    scheduledAt: null,
    sizeBytes: 2048,
    spool: { segment: 'seg-bench', offset: 0, length: 2048 },
    createdAt,
    updatedAt: createdAt,
  };
}

type Runtime = Awaited<ReturnType<typeof createRuntime>>;

/** `count` emails for a team, newest now, SPACING_MS apart; answers its domain ids. */
export async function seedEmails(runtime: Runtime, teamId: string, count: number): Promise<string[]> {
  const domainIds = [newId(), newId(), newId()];
  const end = Date.now() - 60_000;
  const started = performance.now();
  for (let from = 0; from < count; from += SEED_BATCH) {
    const batch: Email[] = [];
    for (let i = from; i < Math.min(count, from + SEED_BATCH); i++)
      batch.push(emailAt(teamId, domainIds, i, new Date(end - (count - i) * SPACING_MS)));
    await runtime.db.knex.transaction((trx) => new EmailRepository(trx).insertMany(batch));
    if (count >= 100_000 && (from / SEED_BATCH) % 40 === 0)
      process.stdout.write(`\r  seeded ${from.toLocaleString('en')} of ${count.toLocaleString('en')}`);
  }
  if (count >= 100_000) process.stdout.write('\r');
  console.log(`seeded ${count.toLocaleString('en')} emails in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return domainIds;
}

/**
 * A benchmark appliance's environment: a temporary folder, and a fresh database in it (SQLite)
 * or on MAILROOM_BENCH_DATABASE_URL's server (named after `name` and the pid; drop it after).
 */
export function benchAppliance(name: string): {
  dir: string;
  database: string;
  server: boolean;
  env: Record<string, string>;
} {
  const server = process.env.MAILROOM_BENCH_DATABASE_URL || null;
  const dir = mkdtempSync(join(tmpdir(), `mailroom-bench-${name}-`));
  const database = server
    ? `${server.replace(/\/+$/, '')}/mailroom_bench_${name.replace(/-/g, '_')}_${process.pid}`
    : `sqlite://${join(dir, 'mailroom.sqlite')}`;
  const env: Record<string, string> = {
    MAILROOM_CONFIG: '',
    MAILROOM_LOG_LEVEL: 'silent',
    MAILROOM_DATA_DIR: join(dir, 'data'),
    MAILROOM_DATABASE_URL: database,
    MAILROOM_API_PORT: '0',
    MAILROOM_SUBMISSION_PORT: '0',
    MAILROOM_INBOUND_PORT: '0',
    MAILROOM_METRICS_PORT: '0',
    MAILROOM_RATE_LIMIT_PER_SECOND: '100000',
  };
  return { dir, database, server: Boolean(server), env };
}
