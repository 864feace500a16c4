import type { Context } from 'koa';
import type { Services } from '../../app/services.js';
import type { Caller } from '../../core/platform/auth/caller.js';
import { AppError, InvalidApiKeyError, InvalidPermissionError, MissingApiKeyError } from '../../lib/errors.js';

/**
 * The /mcp credential: an OAuth access token issued for <public URL>/mcp, nothing else (the MCP
 * authorization spec: a server accepts only tokens issued for it; a token for the REST API, or
 * one that named no resource, is refused like an unknown one). Refusals without a usable token
 * carry `WWW-Authenticate: Bearer resource_metadata=...` (RFC 9728 5.1, required by the MCP
 * authorization spec): that header is how an MCP client finds the authorization server.
 */
export async function authenticateMcp(ctx: Context, services: Services): Promise<Caller> {
  const metadata = services.oauthMetadata.protectedResourceUrl('mcp');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  if (!match) {
    throw new MissingApiKeyError('Missing access token: send Authorization: Bearer <OAuth access token>', {
      headers: { 'www-authenticate': `Bearer resource_metadata="${metadata}"` },
    });
  }
  let caller: Caller;
  try {
    caller = await services.apiKeys.authenticate(match[1]!, 'mcp');
  } catch (err) {
    // RFC 6750 3.1: an unknown, expired, revoked or other-resource token is invalid_token; the body stays the spec's.
    if (err instanceof AppError && err.statusCode === 401) {
      throw new InvalidApiKeyError(err.message, {
        headers: {
          'www-authenticate': `Bearer error="invalid_token", error_description="${headerText(err.message)}", resource_metadata="${metadata}"`,
        },
      });
    }
    throw err;
  }
  // An API key is a valid credential of the API, just not of this route.
  if (caller.scopes === null)
    throw new InvalidPermissionError('The /mcp route takes only an OAuth access token, not an API key');
  return caller;
}

/** RFC 6750 3: error_description is printable ASCII without '"' and '\\'; anything else is dropped. */
function headerText(text: string): string {
  return text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
}
