import type { Audience } from '../platform/auth/caller.js';
import { SCOPE_CATALOGUE } from './oauth.scopes.js';
import { ResourceIndicators } from './resource-indicators.js';

const RESOURCE_NAMES: Record<Audience, string> = { api: 'Mailroom REST API', mcp: 'Mailroom MCP server' };

/**
 * The discovery documents: RFC 8414 (authorization server) and RFC 9728 (protected resource).
 * The issuer is the public URL (api.publicUrl); OAuth endpoints live at its root.
 */
export class OAuthMetadata {
  constructor(
    private readonly publicUrl: () => string,
    private readonly resources: ResourceIndicators,
  ) {}

  issuer(): string {
    return this.publicUrl();
  }

  registrationClientUri(clientId: string): string {
    return `${this.issuer()}/oauth/register/${encodeURIComponent(clientId)}`;
  }

  authorizationServer() {
    const issuer = this.issuer();
    return {
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [...SCOPE_CATALOGUE],
    };
  }

  /**
   * RFC 9728: the document of one resource (the REST API at the public URL, the MCP server at
   * /mcp). Its `resource` is the identifier the well-known suffix was built from, and the one
   * tokens for it must be issued for (RFC 8707): each resource has its own document.
   */
  protectedResource(audience: Audience = 'api') {
    return {
      resource: this.resources.identifier(audience),
      resource_name: RESOURCE_NAMES[audience],
      authorization_servers: [this.issuer()],
      scopes_supported: [...SCOPE_CATALOGUE],
      bearer_methods_supported: ['header'],
    };
  }

  /** Where protectedResource(audience) is served: the well-known prefix, then the resource's path (RFC 9728 3.1). */
  protectedResourceUrl(audience: Audience = 'api'): string {
    return `${this.issuer()}/.well-known/oauth-protected-resource${ResourceIndicators.path(audience)}`;
  }
}
