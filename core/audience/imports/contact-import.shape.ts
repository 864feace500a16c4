import type { ContactImport, ImportFailure } from './contact-import.types.js';

/** An import as retrieve and list show it (the SDK's ContactImport), with why it failed, if it did. */
export function publicContactImport(i: ContactImport) {
  return {
    object: 'contact_import' as const,
    id: i.id,
    status: i.status,
    created_at: i.createdAt.toISOString(),
    completed_at: i.completedAt?.toISOString() ?? null,
    counts: i.counts,
    failure_reason: i.failureReason,
    resumed_at: i.resumedAt?.toISOString() ?? null,
  };
}

export function publicImportFailure(f: ImportFailure) {
  return { object: 'contact_import_failure' as const, row: f.row, email: f.email, reason: f.reason };
}
