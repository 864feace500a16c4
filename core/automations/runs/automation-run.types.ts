/** Spec: "Automation status and runs". */
export const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export type RunStepStatus = 'running' | 'waiting' | 'completed' | 'failed';

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
