import type { PropertyType } from '../properties/contact-property.types.js';
import type { Subscription } from '../topics/topic.types.js';

export const IMPORT_STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export type OnConflict = 'upsert' | 'skip';
export type ImportCounts = { total: number; created: number; updated: number; skipped: number; failed: number };

/** The largest file an import takes (spec). */
export const MAX_IMPORT_FILE_BYTES = 50 * 1024 * 1024;
/** Failed rows kept with their row numbers (spec: the first thousand). */
export const KEPT_FAILURES = 1000;
/** Days after completion the uploaded file (and the kept failures, copies of its rows) are deleted. */
export const IMPORT_FILE_RETENTION_DAYS = 7;
/** Where uploaded files live in the blob store, as `<import id>.csv`. */
export const IMPORT_FILES = 'contact-imports';

/** A column of the file: its position and its name in the header (for messages). */
export type Column = { index: number; name: string };

/** How a value cell is read: `boolean` is stored as the declared type allows ("true"/"false" or 1/0). */
export type CellReading = 'string' | 'number' | 'boolean';

/**
 * What to do with the file, resolved once at upload from its header, the column map and the
 * team's properties, and stored with the import: the worker never decides anything again.
 */
export type ImportPlan = {
  /** Bytes to skip at the start of the file (a UTF-8 byte order mark). */
  skipBytes: number;
  delimiter: string;
  columns: { email: Column; first_name?: Column; last_name?: Column; unsubscribed?: Column };
  properties: Array<{ propertyId: string; key: string; type: PropertyType; read: CellReading; column: Column }>;
  onConflict: OnConflict;
  segmentIds: string[];
  topics: Array<{ id: string; subscription: Subscription }>;
};

export type ContactImport = {
  id: string;
  teamId: string;
  apiKeyId: string | null;
  status: ImportStatus;
  fileName: string | null;
  fileSize: number;
  fileDeletedAt: Date | null;
  plan: ImportPlan;
  /** Records of the file (after the header) whose outcome has committed: where a resumed run continues. */
  rowsDone: number;
  counts: ImportCounts;
  failureReason: string | null;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  createdAt: Date;
  startedAt: Date | null;
  /** The last time a run took over an import an earlier run had started (a restart); null if never. */
  resumedAt: Date | null;
  completedAt: Date | null;
  updatedAt: Date;
};

/** A kept failed row: its number as a spreadsheet shows it (the header is row 1). */
export type ImportFailure = { row: number; email: string | null; reason: string };

export const NO_COUNTS: ImportCounts = { total: 0, created: 0, updated: 0, skipped: 0, failed: 0 };
