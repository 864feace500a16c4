/** The API's contact import shapes (document 2, plus `resumed_at`) as the pages read them. */
export type ImportStatus = 'queued' | 'in_progress' | 'completed' | 'failed';
export type ImportCounts = { total: number; created: number; updated: number; skipped: number; failed: number };
export type ContactImport = {
  object: 'contact_import';
  id: string;
  status: ImportStatus;
  created_at: string;
  completed_at: string | null;
  counts: ImportCounts;
  failure_reason: string | null;
  /** Set when a run took over the import after an earlier one stopped part-way (a restart). */
  resumed_at: string | null;
};
export type ImportFailure = { row: number; email: string | null; reason: string };
export type PropertyDef = { id: string; key: string; type: 'string' | 'number' };
export type SegmentItem = { id: string; name: string };

export const isRunning = (status: ImportStatus) => status === 'queued' || status === 'in_progress';
