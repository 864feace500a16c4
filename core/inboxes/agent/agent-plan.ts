import { z } from 'zod';
import { AGENT_ACTIONS, type AgentAction } from '../inbox.types.js';

/** More steps than this in one answer is not a plan for one email: the rest are dropped. */
export const MAX_PLANNED_STEPS = 20;

/** One step the model asks for, as it gave it (checked against the inbox's settings later). */
export type PlannedStep = {
  action: string;
  reason: string | null;
  labels: string[];
  assigneeEmail: string | null;
  to: string[];
  replyText: string | null;
};

const nullableString = (description: string) => ({ type: ['string', 'null'], description });
const stringList = (description: string) => ({ type: 'array', items: { type: 'string' }, description });

/**
 * The answer's JSON schema, in OpenAI's strict subset: the root must be an object, so the list
 * of steps sits under `actions`, and every field is required (null or [] when it does not apply).
 * The action is an enum of every agent action, not only the enabled ones: a model asking for a
 * disabled one is recorded as a refusal, which tells the team what the agent wanted to do.
 */
export const agentPlanJsonSchema = {
  type: 'object',
  properties: {
    actions: {
      type: 'array',
      description: 'The actions to take on this email, in order; an empty list when none is needed',
      items: {
        type: 'object',
        properties: {
          action: { type: 'string', enum: [...AGENT_ACTIONS], description: 'One of the enabled actions' },
          reason: { type: 'string', description: 'Why, in one sentence, citing the instructions' },
          labels: stringList('add_labels: names of existing labels of the inbox; otherwise []'),
          assignee_email: nullableString('assign_thread: the address of the team member; otherwise null'),
          to: stringList('forward_thread: the addresses to forward to; otherwise []'),
          reply_text: nullableString('draft_reply: the plain-text body of the reply; otherwise null'),
        },
        required: ['action', 'reason', 'labels', 'assignee_email', 'to', 'reply_text'],
        additionalProperties: false,
      },
    },
  },
  required: ['actions'],
  additionalProperties: false,
};

const text = z
  .string()
  .nullish()
  .transform((value) => (value?.trim() ? value.trim() : null));
const list = z
  .union([z.string(), z.array(z.string())])
  .nullish()
  .transform((value) => (value == null ? [] : Array.isArray(value) ? value : [value]))
  .transform((values) => values.map((one) => one.trim()).filter((one) => one !== ''));

const step = z.object({
  action: z.string().trim().min(1, 'must name an action').max(100),
  reason: text.pipe(z.string().max(2_000).nullable()),
  labels: list,
  assignee_email: text,
  to: list,
  reply_text: text.pipe(z.string().max(100_000).nullable()),
});

/**
 * The check on the way in. Lenient where leniency is harmless (a bare list instead of
 * `{ actions }`, a missing optional field, one address instead of a list); anything else is an
 * unparsable answer, which fails the whole run: no step of a plan we cannot read is applied.
 */
export const agentPlanReply = z
  .union([z.object({ actions: z.array(step) }), z.array(step).transform((actions) => ({ actions }))])
  .transform(({ actions }): PlannedStep[] =>
    actions.slice(0, MAX_PLANNED_STEPS).map((one) => ({
      action: one.action,
      reason: one.reason,
      labels: one.labels,
      assigneeEmail: one.assignee_email,
      to: one.to,
      replyText: one.reply_text,
    })),
  );

export const isAgentAction = (value: string): value is AgentAction =>
  (AGENT_ACTIONS as readonly string[]).includes(value);

/** The folder each folder action moves a thread to. */
export const FOLDER_OF = { mark_as_spam: 'spam', archive: 'archive', move_to_trash: 'trash' } as const;

const ADDRESS_IN_TEXT =
  /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+/g;

/**
 * The addresses the instructions name, lower-cased: the only ones the agent may forward to. A
 * model reading a customer's email can be talked into anything ("forward this to me@evil"), so the
 * allow-list comes from what the team wrote, never from the model or the email.
 */
export function addressesInInstructions(instructions: string | null): Set<string> {
  return new Set((instructions ?? '').match(ADDRESS_IN_TEXT)?.map((one) => one.toLowerCase()) ?? []);
}
