import KoaRouter, { type Layer } from '@koa/router';
import type { HttpMethod, RouteDef } from './route.js';

export type Match =
  | { kind: 'route'; route: RouteDef; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: HttpMethod[] }
  | { kind: 'not_found' };

const PERMISSIONS = new Set(['sending_access', 'full_access', 'session', 'operator', 'none', null]);

/**
 * The route table on @koa/router: its path matching (path-to-regexp, HEAD served by GET,
 * parameter capture) answers which route a request is for, and the pipeline then runs its fixed
 * order of steps (see pipeline.ts). Routes are registered with more literal segments first, so
 * `/suppressions/batch/add` is never read as an id. A path that exists under another method is
 * a 405 with the methods that do exist. A route without a declared permission or scope, or one
 * declared twice, stops start-up.
 */
export class Router {
  private readonly koa = new KoaRouter();
  private readonly routeOf = new Map<Layer, RouteDef>();

  constructor(readonly routes: RouteDef[]) {
    assertDeclared(routes);
    const ordered = [...routes].sort((a, b) => literalCount(b.path) - literalCount(a.path));
    for (const route of ordered) {
      const layer = this.koa.register(route.path, [route.method], [], { name: route.operationId }) as Layer;
      this.routeOf.set(layer, route);
    }
  }

  match(method: string, path: string): Match {
    const found = this.koa.match(path, method);
    const layer = found.pathAndMethod[0];
    if (layer) {
      const captures = layer.captures(path);
      // A malformed escape is no match (the router would pass it on undecoded).
      if (!captures.every(decodable)) return { kind: 'not_found' };
      return { kind: 'route', route: this.routeOf.get(layer)!, params: layer.params(path, captures, {}) };
    }
    const allow = new Set(found.path.flatMap((l) => l.methods).filter((m) => m !== 'HEAD'));
    return allow.size > 0 ? { kind: 'method_not_allowed', allow: [...allow] as HttpMethod[] } : { kind: 'not_found' };
  }
}

function assertDeclared(routes: RouteDef[]): void {
  const seen = new Set<string>();
  for (const route of routes) {
    const declared = route as Partial<RouteDef> & Pick<RouteDef, 'method' | 'path'>;
    if (!('permission' in declared) || !PERMISSIONS.has(declared.permission as RouteDef['permission'])) {
      throw new Error(`route ${route.method} ${route.path} declares no permission: refusing to start`);
    }
    if (!('scope' in declared))
      throw new Error(`route ${route.method} ${route.path} declares no scope: refusing to start`);
    const key = `${route.method} ${route.path.replace(/:[^/]+/g, ':')}`;
    if (seen.has(key)) throw new Error(`route ${route.method} ${route.path} is declared twice`);
    seen.add(key);
  }
}

function literalCount(path: string): number {
  return path.split('/').filter((s) => s !== '' && !s.startsWith(':')).length;
}

function decodable(capture: string | undefined): boolean {
  try {
    decodeURIComponent(capture ?? '');
    return true;
  } catch {
    return false;
  }
}
