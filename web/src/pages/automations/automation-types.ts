/** The automation shapes of the API (api/routes/automations.routes.ts and automation-versions.routes.ts). */
export type StepType =
  'trigger' | 'send_email' | 'delay' | 'condition' | 'contact_update' | 'add_to_segment' | 'topic_update';
export type ConnectionType = 'default' | 'condition_met' | 'condition_not_met';

export type Step = { key: string; type: string; config: Record<string, unknown> };
export type Connection = { from: string; to: string; type: ConnectionType | string };
export type Graph = { steps: Step[]; connections: Connection[] };

export type AutomationItem = {
  id: string;
  name: string;
  status: 'enabled' | 'disabled';
  created_at: string;
  updated_at: string | null;
};
export type Automation = AutomationItem & Graph & { object: 'automation' };

export const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type RunCounts = Record<RunStatus, number>;

export type AutomationVersion = Graph & {
  object: 'automation_version';
  id: string;
  number: number;
  active: boolean;
  created_at: string;
  runs: RunCounts;
};

export type RunItem = {
  id: string;
  status: RunStatus;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
};
export type RunStep = {
  key: string;
  type: string;
  status: string;
  output: Record<string, unknown> | null;
  error: { message?: string } | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
};
export type Run = RunItem & {
  object: 'automation_run';
  contact_id: string;
  error: { message?: string } | null;
  steps: RunStep[];
};

/** The palette: the step types the API accepts (wait_for_event and contact_delete it refuses). */
export const STEP_PALETTE: { type: StepType; label: string; hint: string }[] = [
  { type: 'delay', label: 'Delay', hint: 'Wait a while ("2 days") or until an instant' },
  { type: 'condition', label: 'Condition', hint: 'Branch on the contact: met or not met' },
  { type: 'send_email', label: 'Send email', hint: 'Send a published template to the contact' },
  { type: 'contact_update', label: 'Update contact', hint: 'Set the name or unsubscribe' },
  { type: 'add_to_segment', label: 'Add to segment', hint: 'Put the contact in a segment' },
  { type: 'topic_update', label: 'Topic subscription', hint: 'Opt the contact in or out of a topic' },
  { type: 'trigger', label: 'Trigger', hint: 'The event that starts a run (one per graph)' },
];

/** Step types the SDK knows that this appliance refuses (spec: "not available"), shown as such. */
export const UNAVAILABLE_STEPS = [
  { type: 'wait_for_event', label: 'Wait for event' },
  { type: 'contact_delete', label: 'Delete contact' },
];

export const stepLabel = (type: string) =>
  STEP_PALETTE.find((entry) => entry.type === type)?.label ??
  UNAVAILABLE_STEPS.find((entry) => entry.type === type)?.label ??
  type;

/** Edge labels: every connection type of the SDK, including the two this appliance refuses. */
export const CONNECTION_LABELS: Record<string, string> = {
  default: 'next',
  condition_met: 'met',
  condition_not_met: 'not met',
  timeout: 'timeout',
  event_received: 'event received',
};
