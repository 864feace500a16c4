import type { AutomationStep } from '../automation.types.js';
import type { AutomationRun, AutomationRunStep } from './automation-run.types.js';

const iso = (value: Date | null) => (value ? value.toISOString() : null);

/** A run in a list (the SDK's AutomationRunItem). */
export const publicRunItem = (run: AutomationRun) => ({
  id: run.id,
  status: run.status,
  started_at: run.createdAt.toISOString(),
  completed_at: iso(run.endedAt),
  created_at: run.createdAt.toISOString(),
});

/**
 * One run with its steps (the SDK's AutomationRun): every step of the pinned version in walk
 * order; a step the run has not reached is `pending` while the run goes on, `skipped` once it ended.
 */
export const publicRun = (
  run: AutomationRun,
  steps: Array<{ step: AutomationStep; row: AutomationRunStep | undefined }>,
) => ({
  object: 'automation_run' as const,
  ...publicRunItem(run),
  contact_id: run.contactId,
  error: run.error ? { message: run.error } : null,
  steps: steps.map(({ step, row }) => ({
    key: step.key,
    type: step.type,
    status: row ? row.status : run.status === 'running' ? 'pending' : 'skipped',
    // A skipped step says why in its output; it did not fail.
    output: row?.emailId ? { email_id: row.emailId } : row?.status === 'skipped' ? { skipped_reason: row.error } : null,
    error: row?.error && row.status !== 'skipped' ? { message: row.error } : null,
    started_at: iso(row?.startedAt ?? null),
    completed_at: iso(row?.endedAt ?? null),
    created_at: (row?.startedAt ?? run.createdAt).toISOString(),
  })),
});
