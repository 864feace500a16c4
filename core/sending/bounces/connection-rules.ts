/**
 * Failures with no server reply to classify: the connection, DNS or TLS broke. All of them are
 * deferred (the next attempt may reach another MX, or leave from another address); these rules
 * only say what happened in words a sender understands. Tested, in order, against
 * '<error code> <error message>' as nodemailer and node:net report them.
 */
export type ConnectionRule = { id: string; match: RegExp; message: string; example: string };

export const CONNECTION_RULES: readonly ConnectionRule[] = [
  // Our TLS policy for the destination requires STARTTLS; the server did not offer or accept it.
  {
    id: 'starttls-unavailable',
    match: /STARTTLS/i,
    message: 'TLS is required for this destination, but the server did not accept STARTTLS.',
    example: 'ETLS Error upgrading connection with STARTTLS',
  },
  {
    id: 'tls-certificate',
    match: /CERT_|certificate|self[- ]signed|altnames|UNABLE_TO_VERIFY/i,
    message: "TLS is required for this destination, but the server's certificate did not verify.",
    example:
      "ETLS Error initiating TLS - Hostname/IP does not match certificate's altnames: Host: mx.example.org. is not in the cert's altnames: DNS:other.example.net",
  },
  {
    id: 'tls-failure',
    match: /^ETLS\b|\bTLS\b|\bSSL\b|handshake/i,
    message: 'The TLS handshake with the server failed.',
    example:
      'ETLS Error initiating TLS - Client network socket disconnected before secure TLS connection was established',
  },
  {
    id: 'connection-refused',
    match: /ECONNREFUSED/,
    message: 'The server refused the connection.',
    example: 'ECONNREFUSED connect ECONNREFUSED 192.0.2.10:25',
  },
  {
    id: 'connection-timeout',
    match: /ETIMEDOUT|ETIMEOUT|timed? ?out/i,
    message: 'The connection to the server timed out.',
    example: 'ETIMEDOUT Connection timeout',
  },
  {
    id: 'connection-reset',
    match: /ECONNRESET|EPIPE|socket hang up|closed unexpectedly/i,
    message: 'The server closed the connection unexpectedly.',
    example: 'ECONNECTION Connection closed unexpectedly',
  },
  {
    id: 'network-unreachable',
    match: /EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|EADDRNOTAVAIL/,
    message: 'The server could not be reached from the sending address.',
    example: 'EHOSTUNREACH connect EHOSTUNREACH 192.0.2.10:25 - Local (198.51.100.5:0)',
  },
  {
    id: 'dns-failure',
    match: /ENOTFOUND|EAI_AGAIN|ESERVFAIL|EDNS|getaddrinfo/,
    message: "The server's address could not be resolved.",
    example: 'EDNS getaddrinfo EAI_AGAIN mx.example.org',
  },
  {
    id: 'connection-failed',
    match: /./,
    message: 'The connection to the server failed.',
    example: 'ESOCKET Unexpected socket state',
  },
];
