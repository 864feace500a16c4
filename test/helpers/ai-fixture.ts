import type { Clock } from '../../lib/clock.js';
import { request } from './http.js';
import { startOpenAiDouble, type OpenAiDouble } from './openai-double.js';
import { startTestApp, type TestApp } from './test-app.js';

export const AI_TEST_KEY = 'sk-test-ai-double-key';
export const AI_TEST_MODEL = 'mailroom-test-model';

/**
 * An appliance whose AI provider is the local OpenAI-compatible double (the real `openai` SDK
 * pointed at it), with a short timeout and no retries unless the test says otherwise.
 */
export async function startAiApp(
  options: { clock?: Clock; ai?: Record<string, unknown>; config?: Record<string, unknown> } = {},
): Promise<{ app: TestApp; double: OpenAiDouble; close: () => Promise<void> }> {
  const double = await startOpenAiDouble();
  const app = await startTestApp({
    clock: options.clock,
    config: {
      ...options.config,
      ai: {
        provider: 'openai-compatible',
        baseUrl: double.baseUrl,
        model: AI_TEST_MODEL,
        timeoutMs: 1_000,
        maxRetries: 0,
        ...options.ai,
      },
    },
    env: { MAILROOM_AI_API_KEY: AI_TEST_KEY },
  });
  return {
    app,
    double,
    close: async () => {
      await app.close();
      await double.close();
    },
  };
}

/** Turns AI assist on for the team, through PATCH /team as a customer would. */
export async function enableAi(app: TestApp, token: string): Promise<void> {
  const res = await request(app.url, '/team', { method: 'PATCH', token, body: { ai_assist_enabled: true } });
  if (res.status !== 200) throw new Error(`PATCH /team ai_assist_enabled: ${res.status} ${res.text}`);
}

/** A new team (plan as given) with AI assist on. */
export async function aiTeam(app: TestApp, name: string, plan?: string) {
  const team = await app.createTeam(name, plan);
  await enableAi(app, team.token);
  return team;
}

/** The team's ai_credits records in the usage ledger. */
export async function creditRecords(app: TestApp, teamId: string) {
  return (await app.runtime.db.knex('usage_records').where({ team_id: teamId, category: 'ai_credits' })) as Array<{
    quantity: number;
    source_id: string | null;
    at: unknown;
  }>;
}
