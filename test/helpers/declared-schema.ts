import type { Test } from 'tap';
import { apiRoutes } from '../../api/routes/index.js';
import type { HttpResponse } from './http.js';

const routes = apiRoutes('test');

/** The body agrees with the route's declared response schema (what OpenAPI publishes). */
export function declared(t: Test, method: string, path: string, res: HttpResponse): void {
  const route = routes.find((r) => r.method === method && r.path === path);
  const parsed = route?.responses[res.status]?.schema?.safeParse(res.body);
  t.ok(parsed?.success, `${method} ${path} ${res.status} matches its declared schema`);
}
