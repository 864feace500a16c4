import t from 'tap';
import { defineRoute, type RouteDef } from '../../api/route.js';
import { Router } from '../../api/router.js';

const route = (method: RouteDef['method'], path: string, extra: Partial<RouteDef> = {}) =>
  ({
    ...defineRoute({
      method,
      path,
      operationId: `${method}${path}`,
      summary: '',
      tag: 't',
      permission: 'full_access',
      scope: null,
      responses: {},
      handler: async () => ({ status: 200 }),
    }),
    ...extra,
  }) as RouteDef;

t.test('a route without a declared permission or scope is refused at start-up', async (t) => {
  const noPermission = route('GET', '/a');
  delete (noPermission as Partial<RouteDef>).permission;
  t.throws(() => new Router([noPermission]), { message: /declares no permission/ });
  t.throws(() => new Router([route('GET', '/a', { permission: 'admin' as never })]), {
    message: /declares no permission/,
  });
  const noScope = route('GET', '/b');
  delete (noScope as Partial<RouteDef>).scope;
  t.throws(() => new Router([noScope]), { message: /declares no scope/ });
  t.throws(() => new Router([route('GET', '/c/:id'), route('GET', '/c/:other')]), { message: /declared twice/ });
});

t.test('literal segments win over parameters; 405 lists the methods that exist', async (t) => {
  const router = new Router([
    route('GET', '/s/:id'),
    route('DELETE', '/s/:id'),
    route('POST', '/s/batch/add'),
    route('POST', '/s'),
  ]);
  t.match(router.match('POST', '/s/batch/add'), { kind: 'route', route: { path: '/s/batch/add' } });
  t.match(router.match('GET', '/s/abc'), { kind: 'route', params: { id: 'abc' } });
  t.match(
    router.match('GET', '/s/a%40b.com'),
    { kind: 'route', params: { id: 'a@b.com' } },
    'parameters are URL-decoded',
  );
  t.match(router.match('HEAD', '/s/abc'), { kind: 'route' }, 'HEAD is served by GET');
  const notAllowed = router.match('PUT', '/s/abc');
  t.equal(notAllowed.kind, 'method_not_allowed');
  if (notAllowed.kind === 'method_not_allowed') t.same(notAllowed.allow.sort(), ['DELETE', 'GET']);
  t.same(router.match('GET', '/nothing'), { kind: 'not_found' });
  t.same(router.match('GET', '/s/%E0%A4%A'), { kind: 'not_found' }, 'a malformed escape is no match');
});
