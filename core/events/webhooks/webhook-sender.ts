import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';

export type PostRequest = {
  url: URL;
  /** The checked address to connect to (the URL's host is only the Host header and TLS name). */
  address: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  maxResponseBytes: number;
  ca?: string;
};

/** What one attempt got: a status with the response's first bytes, or why nothing came back. */
export type PostResult =
  | { statusCode: number; response: string; durationMs: number }
  | { statusCode: null; error: string; durationMs: number };

/**
 * One webhook POST. Redirects are answers like any other (not followed); the response is read
 * up to maxResponseBytes and the connection dropped after that; the whole attempt, connect to
 * last byte, is bounded by timeoutMs. Results are values, never exceptions.
 */
export function postOnce(req: PostRequest): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const body = Buffer.from(req.body, 'utf8');
    const send = req.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const client: ClientRequest = send(
      {
        host: req.address,
        port: req.url.port ? Number(req.url.port) : req.url.protocol === 'https:' ? 443 : 80,
        path: `${req.url.pathname}${req.url.search}`,
        method: 'POST',
        headers: { ...req.headers, host: req.url.host, 'content-length': String(body.length) },
        servername: isIP(req.url.hostname.replace(/^\[|\]$/g, '')) ? undefined : req.url.hostname,
        ca: req.ca,
      },
      (res) =>
        readBounded(res, req.maxResponseBytes, (text) => {
          finish({ statusCode: res.statusCode ?? 0, response: text, durationMs: elapsed() });
          // Past the kept bytes nothing more is wanted: drop the connection rather than drain it.
          if (!res.complete) client.destroy();
        }),
    );
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: `timed out after ${req.timeoutMs} ms`, durationMs: elapsed() });
      client.destroy();
    }, req.timeoutMs);
    client.on('error', (err: NodeJS.ErrnoException) =>
      finish({
        statusCode: null,
        error: err.code ? `${err.code}: ${err.message}` : err.message,
        durationMs: elapsed(),
      }),
    );
    client.end(body);
  });
}

function readBounded(res: IncomingMessage, max: number, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    done(Buffer.concat(chunks).subarray(0, max).toString('utf8'));
  };
  res.on('data', (chunk: Buffer) => {
    if (size < max) chunks.push(chunk);
    size += chunk.length;
    if (size >= max) end();
  });
  res.on('end', end);
  res.on('error', end);
  res.on('aborted', end);
}
