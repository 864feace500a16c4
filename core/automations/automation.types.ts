import { EVENT_TYPES } from '../events/log/event.types.js';

/** Spec: Automation. `enabled` automations enrol contacts; `disabled` ones do not. */
export const AUTOMATION_STATUSES = ['enabled', 'disabled'] as const;
export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];

/** Step types a graph may use. */
export const STEP_TYPES = [
  'trigger',
  'send_email',
  'delay',
  'condition',
  'contact_update',
  'add_to_segment',
  'topic_update',
] as const;
export type StepType = (typeof STEP_TYPES)[number];
/** Step types the SDK knows but this service refuses (spec: "not available"). */
export const REFUSED_STEP_TYPES = ['wait_for_event', 'contact_delete'] as const;

export const CONNECTION_TYPES = ['default', 'condition_met', 'condition_not_met'] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];
export const REFUSED_CONNECTION_TYPES = ['timeout', 'event_received'] as const;

/** Limits (spec: Limits). */
export const MAX_STEPS = 150;
export const MAX_DELAY_MS = 30 * 86_400_000;
export const MAX_NAME_LENGTH = 200;
/** Our own bound on a step key (the spec sets none). */
export const MAX_STEP_KEY_LENGTH = 100;

/**
 * Platform triggers (reserved prefix `svc:`): a contact created, a topic subscribed, a segment
 * entered, and the email.* family of the event log, each as `svc:<type>`.
 */
export const PLATFORM_TRIGGERS: readonly string[] = [
  'svc:contact.created',
  'svc:topic.subscribed',
  'svc:segment.entered',
  ...EVENT_TYPES.filter((type) => type.startsWith('email.')).map((type) => `svc:${type}`),
];

/** A step as published: `config` is the validated object as given. */
export type AutomationStep = { key: string; type: StepType; config: Record<string, unknown> };
/** A connection as published: `type` is always filled in (default `default`). */
export type AutomationConnection = { from: string; to: string; type: ConnectionType };

export type Automation = {
  id: string;
  teamId: string;
  name: string;
  status: AutomationStatus;
  /** The version new runs pin. */
  activeVersionId: string;
  createdAt: Date;
  /** Null until the first update. */
  updatedAt: Date | null;
};

/**
 * What a version's trigger listens to, stored beside its graph for the engine's queries: the
 * event name, the custom event definition live at publication (null for svc: triggers and
 * versions older than the column) and the segment or topic a platform trigger names.
 */
export type TriggerBinding = { event: string; definitionId: string | null; subjectId: string | null };

/** One immutable version of an automation's graph. */
export type AutomationVersion = {
  id: string;
  automationId: string;
  /** 1 for the version written at creation, then 2, 3, ... */
  number: number;
  steps: AutomationStep[];
  connections: AutomationConnection[];
  trigger: TriggerBinding;
  createdAt: Date;
};

/** The event and subject a graph's trigger names (the definition id is the publisher's to resolve). */
export function triggerOf(steps: AutomationStep[], definitionId: string | null = null): TriggerBinding {
  const config = steps.find((s) => s.type === 'trigger')?.config ?? {};
  const subject = config.segment_id ?? config.topic_id;
  return {
    event: typeof config.event_name === 'string' ? config.event_name : '',
    definitionId,
    subjectId: typeof subject === 'string' ? subject.toLowerCase() : null,
  };
}
