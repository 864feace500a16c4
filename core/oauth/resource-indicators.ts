import type { Audience } from '../platform/auth/caller.js';
import { parseStrictHttpUri } from './uri-rules.js';

/** Each protected resource's path below the public URL: the REST API (either base), the MCP server. */
const RESOURCE_PATHS: ReadonlyMap<string, Audience> = new Map([
  ['', 'api'],
  ['/api/v1', 'api'],
  ['/mcp', 'mcp'],
]);

/**
 * The protected resources this server is (RFC 8707 resource indicators, RFC 9728 identifiers):
 * the REST API at the public URL (and its /api/v1 base), and the MCP server at <public URL>/mcp.
 * A token is bound to the one its grant named, and works on no other (MCP authorization: a
 * server accepts only tokens issued for it).
 */
export class ResourceIndicators {
  constructor(private readonly publicUrl: () => string) {}

  /**
   * The audience a resource indicator names: an absolute URI (strict, see parseStrictHttpUri),
   * no query, no fragment, on the public URL's origin and at one of the resources' paths (a
   * trailing slash is allowed). Null when it is malformed or names nothing of this server.
   */
  audienceOf(resource: string): Audience | null {
    const url = parseStrictHttpUri(resource);
    if (!url || resource.includes('?')) return null;
    const base = new URL(this.publicUrl());
    if (url.origin !== base.origin) return null;
    const basePath = base.pathname.replace(/\/+$/, '');
    const path = url.pathname.replace(/\/+$/, '');
    if (path !== basePath && !path.startsWith(`${basePath}/`)) return null;
    return RESOURCE_PATHS.get(path.slice(basePath.length)) ?? null;
  }

  /**
   * The audience of a grant: the one its resource names; without one, the REST API (what a
   * token always meant before audiences existed). Null when the resource names nothing of this
   * server any more (the public URL changed): such a grant's tokens work nowhere.
   */
  audienceOfGrant(resource: string | null): Audience | null {
    return resource === null ? 'api' : this.audienceOf(resource);
  }

  /** The identifier of a resource, as its RFC 9728 document names it. */
  identifier(audience: Audience): string {
    return this.publicUrl().replace(/\/+$/, '') + ResourceIndicators.path(audience);
  }

  /** A resource's path below the public URL: '' for the REST API, '/mcp' for the MCP server. */
  static path(audience: Audience): string {
    return audience === 'mcp' ? '/mcp' : '';
  }
}
