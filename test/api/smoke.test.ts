import t from 'tap';
import { startTestApp } from '../helpers/test-app.js';
import { request } from '../helpers/http.js';

const app = await startTestApp();
t.teardown(() => app.close());

t.test('health answers on both bases', async (t) => {
  for (const base of ['', '/api/v1']) {
    const res = await request(app.url, `${base}/health`);
    t.equal(res.status, 200);
    t.equal(res.body.status, 'ok');
  }
});

t.test('team create and list keys', async (t) => {
  const { token } = await app.createTeam();
  const res = await request(app.url, '/api-keys', { token });
  t.equal(res.status, 200);
  t.equal(res.body.object, 'list');
  t.equal(res.body.data.length, 1);
});
