import t, { type Test } from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * Issue 32: PATCH /team with a postal_address of the wrong shape says which fields it takes.
 * Statuses are the spec's: no object or an unknown field is 400 validation_error (field-level
 * validation), a missing field 422 missing_required_field; each message and errors[] entry
 * lists the accepted fields.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const { token } = await app.createTeam();
const patch = (body: unknown) => request(app.url, '/team', { method: 'PATCH', token, body });
const address = { line1: '1 Main Street', city: 'Springfield', postal_code: '62701', country: 'US' };
const FIELDS = ['line1', 'line2', 'city', 'state', 'postal_code', 'country'];

const listsFields = (t: Test, text: string | undefined, what: string) => {
  for (const field of FIELDS) t.match(text, new RegExp(`\\b${field}\\b`), `${what} names ${field}`);
};

t.test('a postal_address that is not an object: 400 validation_error naming every field', async (t) => {
  for (const [value, got] of [
    ['1 Main Street, Springfield', 'a string'],
    [null, 'null'],
    [[address], 'a list'],
    [42, 'a number'],
  ] as const) {
    const body = errorShape(t, await patch({ postal_address: value }), 400, 'validation_error');
    listsFields(t, body.message, `message for ${got}`);
    t.match(body.message, `(got ${got})`);
    t.equal(body.errors?.length, 1);
    t.equal(body.errors?.[0]?.path, 'postal_address');
    listsFields(t, body.errors?.[0]?.message, `errors[0] for ${got}`);
  }
});

t.test('an unknown field: 400 validation_error, one entry per field, naming the accepted ones', async (t) => {
  const body = errorShape(
    t,
    await patch({ postal_address: { ...address, street: 'x', zip: '1' } }),
    400,
    'validation_error',
  );
  t.same(
    body.errors?.map((e) => e.path),
    ['postal_address.street', 'postal_address.zip'],
  );
  t.match(body.message, /^postal_address\.street: is not a postal_address field; the fields are .* \(and 1 more\)$/);
  listsFields(t, body.message, 'message');
  for (const entry of body.errors ?? []) listsFields(t, entry.message, entry.path);
});

t.test('missing fields: 422 missing_required_field, one entry per field, naming the accepted ones', async (t) => {
  const body = errorShape(
    t,
    await patch({ postal_address: { street: '1 Main Street', zip: '62701', country: 'US' } }),
    422,
    'missing_required_field',
  );
  t.same(
    body.errors?.map((e) => e.path),
    ['postal_address.line1', 'postal_address.city', 'postal_address.postal_code'],
  );
  t.match(
    body.message,
    /^Missing required fields: postal_address\.line1, postal_address\.city, postal_address\.postal_code \(postal_address: /,
  );
  listsFields(t, body.message, 'message');
  for (const entry of body.errors ?? []) {
    t.match(entry.message, /^is required \(postal_address: /);
    listsFields(t, entry.message, entry.path);
  }
});

t.test('field values keep their own refusals; a good address is stored', async (t) => {
  const bad = errorShape(t, await patch({ postal_address: { ...address, country: 'usa' } }), 400, 'validation_error');
  t.equal(bad.errors?.[0]?.path, 'postal_address.country');
  const long = errorShape(
    t,
    await patch({ postal_address: { ...address, city: 'x'.repeat(101) } }),
    400,
    'validation_error',
  );
  t.equal(long.errors?.[0]?.path, 'postal_address.city');
  errorShape(t, await patch({}), 422, 'missing_required_field');
  const ok = await patch({ postal_address: { ...address, line2: 'Suite 2', state: null } });
  t.equal(ok.status, 200, ok.text);
  t.same(ok.body.sender_identity.postal_address, { ...address, line2: 'Suite 2', state: null });
});

t.test('the OpenAPI document still describes postal_address field by field', async (t) => {
  const doc = (await request(app.url, '/openapi.json', { token })).body;
  const schema = doc?.paths?.['/team']?.patch?.requestBody?.content?.['application/json']?.schema;
  t.match(schema?.properties?.postal_address, {
    type: 'object',
    required: ['line1', 'city', 'postal_code', 'country'],
    additionalProperties: false,
  });
  t.same(Object.keys(schema?.properties?.postal_address?.properties ?? {}).sort(), [...FIELDS].sort());
});
