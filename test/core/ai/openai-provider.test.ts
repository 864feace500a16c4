import t from 'tap';
import { z } from 'zod';
import { OpenAiCompatibleProvider, type OpenAiCompatibleOptions } from '../../../core/ai/openai-compatible.provider.js';
import { subjectLinesReply } from '../../../core/ai/ai-replies.js';
import { AppError } from '../../../lib/errors.js';
import { startOpenAiDouble } from '../../helpers/openai-double.js';

/**
 * The adapter over the official `openai` SDK against the local double: the key (or, for a local
 * server, no Authorization header at all), retries, the token limit, and that OPENAI_* variables
 * of the process never redirect prompts or change credentials.
 */
const double = await startOpenAiDouble();
t.teardown(() => double.close());
t.beforeEach(() => double.reset());
const warnings: Array<Record<string, unknown>> = [];
const provider = (options: Partial<OpenAiCompatibleOptions> = {}) =>
  new OpenAiCompatibleProvider({
    baseUrl: double.baseUrl,
    model: 'llama3.1',
    timeoutMs: 1_000,
    maxRetries: 0,
    warn: (details) => void warnings.push(details),
    ...options,
  });
const request = { ...subjectLinesReply, system: 'Suggest subject lines.', user: '## Current subject\nHello' };

t.test('with a key: sent as a bearer token; the reply parsed and validated', async (t) => {
  const answer = await provider({ apiKey: 'sk-hosted' }).complete(request);
  t.same(answer, { suggestions: ['Sample suggestions 1 from the double', 'Sample suggestions 2 from the double'] });
  t.equal(double.requests[0]!.headers.authorization, 'Bearer sk-hosted');
  t.equal(double.requests[0]!.body.model, 'llama3.1');
});

t.test('a local server without a key: no Authorization header at all', async (t) => {
  await provider().complete(request);
  t.notOk('authorization' in double.requests[0]!.headers);
});

t.test('OPENAI_* variables of the process change nothing', async (t) => {
  const saved = { ...process.env };
  t.teardown(() => {
    for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_ORG_ID', 'OPENAI_PROJECT_ID', 'OPENAI_LOG'])
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
  });
  Object.assign(process.env, {
    OPENAI_API_KEY: 'sk-from-env',
    OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
    OPENAI_ORG_ID: 'org-env',
    OPENAI_PROJECT_ID: 'proj-env',
  });
  await provider().complete(request);
  const headers = double.requests[0]!.headers;
  t.notOk('authorization' in headers, 'the environment’s key is not sent');
  t.notOk('openai-organization' in headers);
  t.notOk('openai-project' in headers);
});

t.test('retries (ai.maxRetries) a 500, then answers', async (t) => {
  double.script({ kind: 'status', status: 500 });
  const answer = await provider({ maxRetries: 1 }).complete(request);
  t.equal(answer.suggestions.length, 2);
  t.equal(double.requests.length, 2, 'the failed call and its retry');
});

t.test('maxOutputTokens is sent as max_tokens', async (t) => {
  await provider({ maxOutputTokens: 512 }).complete(request);
  t.equal(double.requests[0]!.body.max_tokens, 512);
});

t.test('failures are 503 service_unavailable, logged for the operator', async (t) => {
  const strict = { ...request, reply: z.object({ suggestions: z.array(z.string()).min(3) }) };
  warnings.length = 0;
  const err = await provider()
    .complete(strict)
    .catch((e: unknown) => e);
  t.ok(err instanceof AppError);
  t.match(err, { statusCode: 503, errorName: 'service_unavailable', message: /expected shape/ });
  t.match(warnings[0], { task: 'subject_lines', reason: 'invalid', issues: [/suggestions/] });
  const refused = await provider({ baseUrl: 'http://127.0.0.1:1/v1' })
    .complete(request)
    .catch((e: unknown) => e);
  t.match(refused, { statusCode: 503, message: /could not be reached/ });
  double.script({ kind: 'status', status: 404 });
  const missing = await provider()
    .complete(request)
    .catch((e: unknown) => e);
  t.match(missing, { statusCode: 503, message: /refused the request \(HTTP 404\).*model/ });
});
