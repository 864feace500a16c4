import { compileErrors, validate } from '@readme/openapi-parser';
import t from 'tap';
import { apiRoutes } from '../../api/routes/index.js';
import { request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());

t.test('GET /openapi.json is a valid OpenAPI 3.1 document of every route', async (t) => {
  const res = await request(app.url, '/openapi.json');
  t.equal(res.status, 200);
  const doc = res.body;
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, '1.0.0');
  t.same(
    doc.servers.map((s: { url: string }) => s.url),
    ['/', '/api/v1'],
  );
  const result = await validate(structuredClone(doc));
  t.ok(result.valid, result.valid ? 'valid' : compileErrors(result));

  const routes = apiRoutes('test');
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation = doc.paths[path]?.[route.method.toLowerCase()];
    t.ok(operation, `${route.method} ${route.path} is documented`);
    if (!operation) continue;
    t.equal(operation['x-svc-permission'], route.permission, `${route.operationId}: x-svc-permission`);
    t.ok('x-svc-scope' in operation, `${route.operationId}: x-svc-scope present`);
    t.equal(operation['x-svc-scope'], route.scope);
  }
  const operations = Object.values(doc.paths).flatMap((item) => Object.values(item as object));
  t.equal(operations.length, routes.length, 'nothing documented that is not routed');
  t.same((await request(app.url, '/api/v1/openapi.json')).body, doc, 'same document on both bases');
});

t.test('documented parameters follow the schemas', async (t) => {
  const doc = (await request(app.url, '/openapi.json')).body;
  const list = doc.paths['/api-keys'].get;
  const limit = list.parameters.find((p: { name: string }) => p.name === 'limit');
  t.match(limit, { in: 'query', required: false });
  const create = doc.paths['/api-keys'].post;
  t.same(create.requestBody.content['application/json'].schema.required, ['name']);
  t.equal(create['x-svc-permission'], 'full_access');
  t.equal(doc.paths['/health'].get['x-svc-permission'], 'none');
  t.equal(doc.paths['/team'].get['x-svc-scope'], 'team:read');
});

t.test(
  'the tracking routes are listed, marked as served on tracking hosts, and not routed on the API host',
  async (t) => {
    const doc = (await request(app.url, '/openapi.json')).body;
    for (const path of ['/o/{token}', '/c/{token}']) {
      const operation = doc.paths[path]?.get;
      t.equal(operation?.['x-svc-surface'], 'tracking', `${path} is a tracking route`);
      t.equal(operation?.['x-svc-permission'], 'none');
      t.match(operation?.servers?.[0]?.url, /tracking_host/);
    }
    t.equal((await request(app.url, '/o/abc')).status, 404, 'the API host does not serve them');
  },
);
