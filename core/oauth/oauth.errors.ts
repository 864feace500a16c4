/**
 * A refusal in the OAuth error shape `{ error, error_description }` (RFC 6749 5.2, RFC 7591
 * 3.2.2), which /oauth/token, /oauth/revoke and /oauth/register answer instead of the service
 * error body. Not an AppError on purpose: the API's error handler must never render one.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'invalid_target'
  | 'invalid_token';

const STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_client_metadata: 400,
  invalid_redirect_uri: 400,
  // RFC 8707 2: the resource parameter names nothing this server serves, or not the grant's.
  invalid_target: 400,
  invalid_token: 401,
};

export class OAuthError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    options: { status?: number; headers?: Record<string, string> } = {},
  ) {
    super(description);
    this.status = options.status ?? STATUS[error];
    this.headers = options.headers ?? {};
    // RFC 6750 3.1: a refused bearer token says so in WWW-Authenticate.
    if (error === 'invalid_token') this.headers['www-authenticate'] = 'Bearer error="invalid_token"';
  }

  toBody(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}
