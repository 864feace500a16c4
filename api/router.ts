import type { HttpMethod, RouteDef } from './route.js';

type Compiled = { route: RouteDef; segments: string[] };

export type Match =
  | { kind: 'route'; route: RouteDef; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: HttpMethod[] }
  | { kind: 'not_found' };

const PERMISSIONS = new Set(['sending_access', 'full_access', 'session', 'none', null]);

/**
 * Matches a path against the route table. Literal segments win over parameters, so
 * `/suppressions/batch/add` is never read as an id. A path that exists under another method is
 * a 405 with the methods that do exist.
 */
export class Router {
  private readonly compiled: Compiled[];

  constructor(readonly routes: RouteDef[]) {
    const seen = new Set<string>();
    for (const route of routes) {
      const declared = route as Partial<RouteDef> & Pick<RouteDef, 'method' | 'path'>;
      if (!('permission' in declared) || !PERMISSIONS.has(declared.permission as RouteDef['permission'])) {
        throw new Error(`route ${route.method} ${route.path} declares no permission: refusing to start`);
      }
      if (!('scope' in declared)) throw new Error(`route ${route.method} ${route.path} declares no scope: refusing to start`);
      const key = `${route.method} ${route.path.replace(/:[^/]+/g, ':')}`;
      if (seen.has(key)) throw new Error(`route ${route.method} ${route.path} is declared twice`);
      seen.add(key);
    }
    this.compiled = routes
      .map((route) => ({ route, segments: route.path.split('/').filter(Boolean) }))
      // More literal segments first: literal routes shadow parameter routes of the same length.
      .sort((a, b) => literalCount(b.segments) - literalCount(a.segments));
  }

  match(method: string, path: string): Match {
    const parts = path.split('/').filter(Boolean);
    const allow = new Set<HttpMethod>();
    for (const { route, segments } of this.compiled) {
      const params = matchSegments(segments, parts);
      if (!params) continue;
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { kind: 'route', route, params };
      allow.add(route.method);
    }
    return allow.size > 0 ? { kind: 'method_not_allowed', allow: [...allow] } : { kind: 'not_found' };
  }
}

function literalCount(segments: string[]): number {
  return segments.filter((s) => !s.startsWith(':')).length;
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if (segment.startsWith(':')) {
      let value: string;
      try {
        value = decodeURIComponent(part);
      } catch {
        return undefined;
      }
      params[segment.slice(1)] = value;
    } else if (segment !== part) {
      return undefined;
    }
  }
  return params;
}
