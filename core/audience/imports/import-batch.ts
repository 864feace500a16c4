import { newId } from '../../../lib/ids.js';
import type { ConsentChange } from '../consent/consent-log.js';
import type { Contact } from '../contacts/contact.types.js';
import { NO_COUNTS, type ImportCounts, type ImportFailure, type ImportPlan } from './contact-import.types.js';
import type { ImportedRow, ImportedValue, RowOutcome } from './row-rules.js';

/** What one batch writes, decided before any write: the repository turns each list into multi-row statements. */
export type BatchWrites = {
  inserts: Contact[];
  updates: Contact[];
  values: Array<ImportedValue & { contactId: string }>;
  /** Contacts created or updated: they get the import's topic choices and segment memberships. */
  touched: Contact[];
  consent: Array<{ contact: Contact; changes: ConsentChange[] }>;
  failures: ImportFailure[];
  counts: ImportCounts;
};

export type BatchContext = {
  teamId: string;
  plan: ImportPlan;
  /** The team's contacts among the batch's addresses, by normalized address. */
  existing: Map<string, Contact>;
  /** New contacts the plan's limit still allows, and the limit (for the message). */
  remaining: number;
  limit: number;
  now: Date;
};

/**
 * The row rules that need the database's answer, for one batch in file order: a new address is
 * created (failed past the contact limit); a known one, from the team or from an earlier row of
 * the file, is updated under `upsert` and skipped under `skip`. An update fills what the row
 * gives and keeps the rest, and never resubscribes: `unsubscribed` only goes from false to true,
 * as for POST /contacts. Consent records for the opt-out it sets and for the topic choices.
 */
export function decideBatch(outcomes: RowOutcome[], context: BatchContext): BatchWrites {
  const { plan, now } = context;
  const writes: BatchWrites = {
    inserts: [],
    updates: [],
    values: [],
    touched: [],
    consent: [],
    failures: [],
    counts: { ...NO_COUNTS },
  };
  // Contacts as this batch leaves them, and which of them this batch creates.
  const current = new Map(context.existing);
  const created = new Set<string>();
  const changes = new Map<string, { contact: Contact; changes: ConsentChange[] }>();
  let writtenTwice = false;
  let remaining = context.remaining;

  for (const outcome of outcomes) {
    if (outcome.kind === 'blank') continue;
    writes.counts.total++;
    if (outcome.kind === 'failed') {
      writes.counts.failed++;
      writes.failures.push(outcome.failure);
      continue;
    }
    const row = outcome.contact;
    const known = current.get(row.normalized);
    if (known && plan.onConflict === 'skip') {
      writes.counts.skipped++;
      continue;
    }
    if (!known && remaining <= 0) {
      writes.counts.failed++;
      writes.failures.push({
        row: row.row,
        email: row.email,
        reason: `the plan's contact limit (${context.limit}) is reached`,
      });
      continue;
    }
    writtenTwice ||= known !== undefined && changes.has(known.id);
    const contact = known ? updated(known, row, now) : fresh(row, context.teamId, now);
    if (known) writes.counts.updated++;
    else {
      writes.counts.created++;
      remaining--;
      created.add(row.normalized);
    }
    current.set(row.normalized, contact);
    const consent = consentOf(changes, contact, plan);
    if (contact.unsubscribed && !known?.unsubscribed) consent.push(OPT_OUT);
    for (const { propertyId, type, value } of row.values)
      writes.values.push({ contactId: contact.id, propertyId, type, value });
  }

  for (const [normalized, contact] of current) {
    if (created.has(normalized)) writes.inserts.push(contact);
    else if (contact !== context.existing.get(normalized)) writes.updates.push(contact);
  }
  writes.consent = [...changes.values()];
  writes.touched = writes.consent.map((entry) => entry.contact);
  if (writtenTwice) writes.values = laterWins(writes.values);
  return writes;
}

/** A property set by two rows of one contact keeps the later value (one INSERT names a key once). */
function laterWins(values: BatchWrites['values']): BatchWrites['values'] {
  return [...new Map(values.map((v) => [`${v.contactId} ${v.propertyId}`, v])).values()];
}

const OPT_OUT: ConsentChange = { kind: 'unsubscribed', value: 'unsubscribed' };

/** What the row gives, over what the contact had; the opt-out only ever goes from false to true. */
function updated(known: Contact, row: ImportedRow, now: Date): Contact {
  return {
    ...known,
    firstName: row.firstName ?? known.firstName,
    lastName: row.lastName ?? known.lastName,
    unsubscribed: known.unsubscribed || row.unsubscribed === true,
    updatedAt: now,
  };
}

function fresh(row: ImportedRow, teamId: string, now: Date): Contact {
  return {
    id: newId(),
    teamId,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    unsubscribed: row.unsubscribed === true,
    createdAt: now,
    updatedAt: now,
  };
}

/** The contact's consent changes in this batch; on first sight, the import's topic choices. */
function consentOf(
  changes: Map<string, { contact: Contact; changes: ConsentChange[] }>,
  contact: Contact,
  plan: ImportPlan,
): ConsentChange[] {
  let entry = changes.get(contact.id);
  if (!entry) {
    entry = {
      contact,
      changes: plan.topics.map((t) => ({ kind: 'topic' as const, topicId: t.id, value: t.subscription })),
    };
    changes.set(contact.id, entry);
  }
  return entry.changes;
}
