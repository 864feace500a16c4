import { z } from 'zod';

/**
 * What each helper asks the model to answer: a JSON schema in OpenAI's strict subset (every
 * property listed in `required`, `additionalProperties: false`, no length keywords, which not
 * every OpenAI-compatible server enforces), and the zod schema the answer is checked against on
 * the way in, with the limits. An answer that fails the check is a provider failure (503).
 */
const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);
const strictObject = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const stringList = (description: string) => ({ type: 'array', items: { type: 'string' }, description });

export const subjectLinesReply = {
  name: 'subject_lines',
  jsonSchema: strictObject({ suggestions: stringList('Alternative subject lines, best first') }),
  /** Subjects are one line (998 bytes is the send limit); at most 10 are passed on. */
  reply: z.object({
    suggestions: z
      .array(text(998).refine((value) => !/[\r\n]/.test(value), 'must be one line'))
      .min(1)
      .max(20)
      .transform((list) => list.slice(0, 10)),
  }),
};

export const draftReply = {
  name: 'draft',
  jsonSchema: strictObject({
    html: { type: 'string', description: 'The email body as simple, email-safe HTML' },
    text: { type: 'string', description: 'The same content as plain text' },
  }),
  reply: z.object({ html: text(200_000), text: text(100_000) }),
};

export const diagnosisReply = {
  name: 'diagnosis',
  jsonSchema: strictObject({
    summary: { type: 'string', description: 'What happened to the email, in one to three sentences' },
    likely_causes: stringList('The likely causes, most likely first'),
    next_steps: stringList('What the sender can do next, most useful first'),
  }),
  reply: z.object({
    summary: text(4_000),
    likely_causes: z.array(text(1_000)).max(20),
    next_steps: z.array(text(1_000)).max(20),
  }),
};
