import t from 'tap';
import { AI_TEST_KEY, AI_TEST_MODEL, aiTeam, creditRecords, startAiApp } from '../helpers/ai-fixture.js';
import { declared } from '../helpers/declared-schema.js';
import { errorShape, request } from '../helpers/http.js';

/**
 * POST /ai/subject-lines and POST /ai/draft against a local OpenAI-compatible double, through the
 * official `openai` SDK: what the SDK sends (model, messages, response_format with the helper's
 * JSON schema, the key), each answer's shape and credits, input refusals, and every way the model
 * can fail (invalid, not JSON, refused, cut off, slow, 500, 401): 503 and no credit spent.
 */
const { app, double, close } = await startAiApp();
t.teardown(close);
const team = await aiTeam(app, 'Helpers');
const post = (path: string, body: unknown, token = team.token) =>
  request(app.url, path, { method: 'POST', token, body });

t.beforeEach(() => double.reset());

t.test('subject lines: the request the SDK sends, and the answer', async (t) => {
  const res = await post('/ai/subject-lines', {
    subject: 'Spring sale starts Monday',
    audience: 'Gardeners who bought seeds last year',
    text: 'Twenty percent off every seed packet until Friday.',
  });
  t.equal(res.status, 200);
  declared(t, 'POST', '/ai/subject-lines', res);
  t.same(Object.keys(res.body), ['object', 'suggestions', 'credits_remaining', 'credits']);
  t.equal(res.body.object, 'ai_subject_suggestions');
  t.same(res.body.suggestions, ['Sample suggestions 1 from the double', 'Sample suggestions 2 from the double']);
  t.same(res.body.credits, { limit: 25, used: 1, remaining: 24 }, 'the free plan’s 25 credits, one spent');
  t.equal(res.body.credits_remaining, 24);

  t.equal(double.requests.length, 1, 'one call to the model');
  const sent = double.requests[0]!;
  t.equal(sent.path, '/v1/chat/completions');
  t.equal(sent.headers.authorization, `Bearer ${AI_TEST_KEY}`, 'the key from MAILROOM_AI_API_KEY');
  t.equal(sent.body.model, AI_TEST_MODEL);
  t.same(
    sent.body.messages.map((m: { role: string }) => m.role),
    ['system', 'user'],
  );
  t.match(sent.body.messages[1].content, /Spring sale starts Monday/);
  t.match(sent.body.messages[1].content, /Gardeners who bought seeds/);
  t.match(sent.body.messages[1].content, /Twenty percent off/);
  t.same(sent.body.response_format, {
    type: 'json_schema',
    json_schema: {
      name: 'subject_lines',
      strict: true,
      schema: {
        type: 'object',
        properties: {
          suggestions: {
            type: 'array',
            items: { type: 'string' },
            description: 'Alternative subject lines, best first',
          },
        },
        required: ['suggestions'],
        additionalProperties: false,
      },
    },
  });
  t.notOk('max_tokens' in sent.body, 'no token limit unless ai.maxOutputTokens is set');
  const records = await creditRecords(app, team.teamId);
  t.equal(records.length, 1, 'one ai_credits record in the usage ledger');
  t.equal(records[0]!.quantity, 1);
  t.equal(records[0]!.source_id, res.headers.get('x-request-id'), 'the record names the request');
});

t.test('subject lines from a template; another team’s template is 404', async (t) => {
  const created = await post('/templates', {
    name: 'Newsletter',
    subject: 'Our October letter',
    html: '<html><body><h1>Autumn bulbs</h1><p>Plant tulips before the frost.</p><style>p{}</style></body></html>',
  });
  t.equal(created.status, 201, created.text);
  const res = await post('/ai/subject-lines', { template_id: created.body.id });
  t.equal(res.status, 200);
  const user = double.requests[0]!.body.messages[1].content as string;
  t.match(user, /Our October letter/, 'the template’s subject');
  t.match(user, /Plant tulips before the frost/, 'the template’s html, as text');
  t.notMatch(user, /<h1>|p\{\}/, 'tags and styles dropped');

  const other = await aiTeam(app, 'Other');
  const before = (await creditRecords(app, other.teamId)).length;
  errorShape(t, await post('/ai/subject-lines', { template_id: created.body.id }, other.token), 404, 'not_found');
  t.equal(double.requests.length, 1, 'the model is not called');
  t.equal((await creditRecords(app, other.teamId)).length, before, 'no credit');
});

t.test('draft: the request, the answer, nothing saved or sent', async (t) => {
  const emailsBefore = await app.runtime.db.knex('emails').count({ n: '*' });
  const templatesBefore = await app.runtime.db.knex('templates').count({ n: '*' });
  const res = await post('/ai/draft', {
    brief: 'Tell customers the shop moves to 12 Mill Lane in May',
    tone: 'formal',
    existing_html: '<p>We are moving!</p>',
  });
  t.equal(res.status, 200);
  declared(t, 'POST', '/ai/draft', res);
  t.same(res.body, {
    object: 'ai_draft',
    html: '<p>Sample html from the double</p>',
    text: 'Sample text from the double',
    credits_remaining: res.body.credits.remaining,
    credits: res.body.credits,
  });
  t.notOk('subject' in res.body, 'no subject');
  const sent = double.requests[0]!.body;
  t.equal(sent.response_format.json_schema.name, 'draft');
  t.same(sent.response_format.json_schema.schema.required, ['html', 'text']);
  t.match(sent.messages[0].content, /formal/, 'the tone');
  t.match(sent.messages[1].content, /12 Mill Lane/, 'the brief');
  t.match(sent.messages[1].content, /We are moving!/, 'the html to revise');
  t.same(await app.runtime.db.knex('emails').count({ n: '*' }), emailsBefore, 'no email');
  t.same(await app.runtime.db.knex('templates').count({ n: '*' }), templatesBefore, 'no template');

  const neutral = await post('/ai/draft', { brief: 'A short thank-you note' });
  t.equal(neutral.status, 200);
  t.match(double.requests[1]!.body.messages[0].content, /clear and neutral/, 'tone defaults to neutral');
});

t.test('input refusals: missing, too long, unknown; the model is not called', async (t) => {
  const nothing = errorShape(t, await post('/ai/subject-lines', {}), 422, 'missing_required_field');
  t.same(nothing.errors, [{ path: '', message: 'at least one field is required' }]);
  errorShape(t, await post('/ai/subject-lines', { subject: '  ', text: '' }), 422, 'missing_required_field');
  const html = errorShape(t, await post('/ai/subject-lines', { html: 'x'.repeat(100_001) }), 400, 'validation_error');
  t.same(html.errors, [{ path: 'html', message: 'must be at most 100000 characters' }]);
  const text = errorShape(t, await post('/ai/subject-lines', { text: 'x'.repeat(100_001) }), 400, 'validation_error');
  t.same(text.errors, [{ path: 'text', message: 'must be at most 100000 characters' }]);
  const audience = errorShape(
    t,
    await post('/ai/subject-lines', { audience: 'x'.repeat(2_001) }),
    400,
    'validation_error',
  );
  t.same(audience.errors, [{ path: 'audience', message: 'must be at most 2000 characters' }]);
  const unknown = errorShape(t, await post('/ai/subject-lines', { subject: 'Hi', tone: 'x' }), 400, 'validation_error');
  t.match(unknown.errors, [{ message: /unknown field/ }]);
  t.equal((await post('/ai/subject-lines', { html: 'x'.repeat(100_000) })).status, 200, '100,000 characters pass');

  const missing = errorShape(t, await post('/ai/draft', { tone: 'friendly' }), 422, 'missing_required_field');
  t.same(missing.errors, [{ path: 'brief', message: 'is required' }]);
  const long = errorShape(t, await post('/ai/draft', { brief: 'x'.repeat(2_001) }), 400, 'validation_error');
  t.same(long.errors, [{ path: 'brief', message: 'must be at most 2000 characters' }]);
  errorShape(t, await post('/ai/draft', { brief: '   ' }), 400, 'validation_error');
  const tone = errorShape(t, await post('/ai/draft', { brief: 'Hi', tone: 'angry' }), 400, 'validation_error');
  t.match(tone.errors, [{ path: 'tone' }]);
  const existing = errorShape(
    t,
    await post('/ai/draft', { brief: 'Hi', existing_html: 'x'.repeat(100_001) }),
    400,
    'validation_error',
  );
  t.same(existing.errors, [{ path: 'existing_html', message: 'must be at most 100000 characters' }]);
  t.equal(double.requests.length, 1, 'only the accepted request reached the model');
});

t.test('a model that fails costs nothing: 503 service_unavailable', async (t) => {
  const cases: Array<{ what: string; reply: Parameters<typeof double.script>[0]; message: RegExp }> = [
    {
      what: 'an answer of the wrong shape',
      reply: { kind: 'json', value: { suggestions: 'one' } },
      message: /expected shape/,
    },
    { what: 'an empty list', reply: { kind: 'json', value: { suggestions: [] } }, message: /expected shape/ },
    {
      what: 'an answer that is not JSON',
      reply: { kind: 'content', content: 'Here are some ideas: ...' },
      message: /not the JSON/,
    },
    { what: 'a refusal', reply: { kind: 'refusal', refusal: 'I cannot help with that.' }, message: /declined/ },
    { what: 'an answer cut off', reply: { kind: 'length' }, message: /cut off/ },
    { what: 'a slow answer', reply: { kind: 'slow', ms: 3_000 }, message: /did not answer within 1000 ms/ },
    { what: 'a 500', reply: { kind: 'status', status: 500 }, message: /failed \(HTTP 500\)/ },
    { what: 'a 401', reply: { kind: 'status', status: 401 }, message: /credentials \(HTTP 401\)/ },
    { what: 'a 429', reply: { kind: 'status', status: 429 }, message: /HTTP 429/ },
  ];
  const failing = await aiTeam(app, 'Failing', 'unlimited');
  for (const { what, reply, message } of cases) {
    double.script(reply);
    const res = await post('/ai/subject-lines', { subject: 'Hello' }, failing.token);
    const body = errorShape(t, res, 503, 'service_unavailable');
    t.match(body.message, message, what);
    t.match(body.message, /no credit was spent/);
    t.notMatch(body.message, /127\.0\.0\.1|sk-/, 'neither the server nor the key is named');
  }
  t.equal(double.requests.length, cases.length, 'each reached the model once (ai.maxRetries 0)');
  t.same(await creditRecords(app, failing.teamId), [], 'no credit spent');
  // The tenth request of the team this minute: a failed call still counts as a request.
  double.script({ kind: 'json', value: { html: '', text: 'x' } });
  errorShape(t, await post('/ai/draft', { brief: 'Hi' }, failing.token), 503, 'service_unavailable');
  t.same(await creditRecords(app, failing.teamId), [], 'an empty draft is refused too');
  const next = await aiTeam(app, 'Failing then fine');
  double.script({ kind: 'status', status: 503 });
  errorShape(t, await post('/ai/subject-lines', { subject: 'Hello' }, next.token), 503, 'service_unavailable');
  const ok = await post('/ai/subject-lines', { subject: 'Hello' }, next.token);
  t.equal(ok.status, 200);
  t.same(ok.body.credits, { limit: 25, used: 1, remaining: 24 }, 'the next good answer spends the first credit');
});
