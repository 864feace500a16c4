import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * A request Node's HTTP parser refuses (a body without Content-Length or chunked framing, a
 * malformed request line or header) never reaches Koa; Node would answer a bare 400 with no
 * body. It gets the spec's error body instead, and the connection closes (its framing is lost).
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // Every refusal in the spec's vocabulary: 400 validation_error, with what went wrong.
    const message =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'The request was not received in time'
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? 'The request headers are too large'
          : 'The request is not valid HTTP (a body needs Content-Length or chunked framing)';
    const body = JSON.stringify({ statusCode: 400, name: 'validation_error', message });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
