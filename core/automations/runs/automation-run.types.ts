/** Spec: "Automation status and runs". */
export const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * How the error of a run refused at the plan's monthly run limit begins (run-limit.ts): such a
 * run is recorded, failed, so the team sees why nothing happened, but it never started and is
 * not counted against the limit.
 */
export const RUN_LIMIT_ERROR_PREFIX = 'Not started: ';

/** 'skipped': a send_email step whose contact had unsubscribed (the run goes on without an email). */
export type RunStepStatus = 'running' | 'waiting' | 'completed' | 'skipped' | 'failed';

export type AutomationRun = {
  id: string;
  teamId: string;
  automationId: string;
  versionId: string;
  contactId: string;
  occurrenceId: string;
  status: RunStatus;
  nextStepKey: string | null;
  wakeAt: Date | null;
  error: string | null;
  /** Unexpected errors of the current step so far (0 after every committed transition). */
  attempts: number;
  /** The claim that holds the run (null when free): a worker commits only while it still holds it. */
  leaseOwner: string | null;
  createdAt: Date;
  updatedAt: Date;
  endedAt: Date | null;
};

export type AutomationRunStep = {
  runId: string;
  stepKey: string;
  status: RunStepStatus;
  startedAt: Date;
  endedAt: Date | null;
  error: string | null;
  emailId: string | null;
};
