import { z } from 'zod';
import { DRAFT_TONES } from './ai.types.js';

/**
 * The AI helpers' bodies, with the spec's input limits (Limits: html and text 100,000
 * characters; audience and brief 2,000). A template is named by id or alias, as on the template
 * routes; another team's is 404.
 */
export const AI_LIMITS = { html: 100_000, text: 100_000, audience: 2_000, brief: 2_000, subject: 998 } as const;

const upTo = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const templateId = z
  .string()
  .min(1, 'must not be empty')
  .max(255, 'must be at most 255 characters')
  .describe('A template (id or alias) whose current version is the material');

export const subjectLinesSchema = z
  .object({
    subject: upTo(AI_LIMITS.subject).optional().describe('The subject line to improve'),
    html: upTo(AI_LIMITS.html).optional(),
    text: upTo(AI_LIMITS.text).optional(),
    audience: upTo(AI_LIMITS.audience).optional().describe('Who the email is for'),
    template_id: templateId.optional(),
  })
  .strict();
export type SubjectLinesInput = z.infer<typeof subjectLinesSchema>;

export const draftSchema = z
  .object({
    brief: upTo(AI_LIMITS.brief)
      .refine((value) => value.trim().length > 0, 'must not be blank')
      .describe('What the email should say'),
    tone: z.enum(DRAFT_TONES).optional().describe('neutral (default), friendly or formal'),
    existing_html: upTo(AI_LIMITS.html).optional().describe('HTML to revise rather than start from nothing'),
    template_id: templateId.optional(),
  })
  .strict();
export type DraftInput = z.infer<typeof draftSchema>;

/** Whether a subject-lines request gives the model anything to work from (blank text does not count). */
export function hasSubjectMaterial(input: SubjectLinesInput): boolean {
  return [input.subject, input.html, input.text, input.audience, input.template_id].some(
    (value) => value !== undefined && value.trim().length > 0,
  );
}
