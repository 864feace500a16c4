import { z } from 'zod';
import { draftSchema, subjectLinesSchema } from '../../core/ai/ai.schemas.js';
import { defineRoute } from '../route.js';
import { errorBodySchema, uuidParam } from '../schemas.js';
import { serializeDiagnosis, serializeDraft, serializeSubjectSuggestions } from '../serializers/ai.serializer.js';

/**
 * The AI helpers (spec: AI helpers). Checks in the spec's order after the input's own: AI not
 * configured 503, AI assist off 403, the month's credits spent 422, more than 10 AI requests a
 * minute 429; an accepted request spends one credit, which commits with the request. See
 * docs/operating/ai.md.
 */
const tag = 'ai';
const credits = z.object({ limit: z.number().int(), used: z.number().int(), remaining: z.number().int() });
const creditFields = { credits_remaining: z.number().int(), credits };
const subjectSuggestions = z.object({
  object: z.literal('ai_subject_suggestions'),
  suggestions: z.array(z.string()),
  ...creditFields,
});
const draft = z.object({ object: z.literal('ai_draft'), html: z.string(), text: z.string(), ...creditFields });
const diagnosis = z.object({
  object: z.literal('ai_diagnosis'),
  summary: z.string(),
  likely_causes: z.array(z.string()),
  next_steps: z.array(z.string()),
  cause: z.literal('provider_failure').nullable(),
  created_at: z.string(),
  stored: z.boolean(),
  ...creditFields,
});
const refusals = {
  403: { description: 'AI assist is off for the team (invalid_permission)', schema: errorBodySchema },
  422: { description: "The month's AI credits are spent (validation_error)", schema: errorBodySchema },
  429: {
    description: 'More than 10 AI requests a minute (rate_limit_exceeded, with retry-after)',
    schema: errorBodySchema,
  },
  503: {
    description: 'AI is not configured, or the model failed or answered late (service_unavailable; no credit spent)',
    schema: errorBodySchema,
  },
};

export const aiRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ai/subject-lines',
    operationId: 'suggestSubjectLines',
    summary: 'Subject line suggestions for a subject, html, text, audience or template',
    tag,
    permission: 'full_access',
    scope: 'ai:use',
    body: subjectLinesSchema,
    exampleBody: { subject: 'Our spring sale starts Monday', audience: 'Customers who bought last year' },
    responses: { 200: { description: 'Suggestions, best first', schema: subjectSuggestions }, ...refusals },
    handler: async ({ body, caller, services, unit, requestId }) => {
      const result = await services.aiAssist.subjectLines(caller.team, body, { unit, requestId });
      return { status: 200, body: serializeSubjectSuggestions(result) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/ai/draft',
    operationId: 'draftEmail',
    summary: 'Draft an email body (html and text) from a brief; nothing is saved or sent',
    tag,
    permission: 'full_access',
    scope: 'ai:use',
    body: draftSchema,
    exampleBody: { brief: 'Welcome new customers and point them to the getting-started guide', tone: 'friendly' },
    responses: { 200: { description: 'The draft (no subject)', schema: draft }, ...refusals },
    handler: async ({ body, caller, services, unit, requestId }) => {
      const result = await services.aiAssist.draft(caller.team, body, { unit, requestId });
      return { status: 200, body: serializeDraft(result) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/emails/:email_id/diagnose',
    operationId: 'diagnoseEmail',
    summary: 'Why the email was (not) delivered, from its events, attempts, DNS and block-list state',
    tag,
    permission: 'full_access',
    scope: 'ai:use',
    params: z.object({ email_id: uuidParam('Email id') }),
    isolation: { param: 'email_id', resource: 'email' },
    responses: {
      200: {
        description: 'The diagnosis (stored: true when this state was diagnosed before, at no cost)',
        schema: diagnosis,
      },
      ...refusals,
    },
    handler: async ({ params, caller, services, unit, requestId }) => {
      const result = await services.aiDiagnosis.diagnose(caller.team, params.email_id, { unit, requestId });
      return { status: 200, body: serializeDiagnosis(result) };
    },
  }),
];
