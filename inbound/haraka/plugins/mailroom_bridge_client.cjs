'use strict';
// The one way our Haraka plugins talk to the Mailroom process that started Haraka: HTTP over the
// Unix socket named in MAILROOM_INBOUND_SOCKET. Every decision (who we accept mail for, where a
// message goes) is made there, in TypeScript, next to the database; the plugins stay thin.
const http = require('node:http');

const socketPath = process.env.MAILROOM_INBOUND_SOCKET;
// A bridge call that takes longer than this is answered 4xx by the caller: the sender retries.
const TIMEOUT_MS = Number(process.env.MAILROOM_INBOUND_BRIDGE_TIMEOUT_MS || 30000);

function request(path, headers, callback) {
  let done = false;
  const finish = (err, status, body) => {
    if (done) return;
    done = true;
    callback(err, status, body);
  };
  const req = http.request({ socketPath, path, method: 'POST', headers, timeout: TIMEOUT_MS }, (res) => {
    const chunks = [];
    res.on('data', (chunk) => chunks.push(chunk));
    res.on('end', () => {
      let body = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return finish(new Error(`bridge ${path}: unreadable answer (HTTP ${res.statusCode})`));
      }
      finish(null, res.statusCode, body);
    });
    res.on('error', (err) => finish(err));
  });
  req.on('timeout', () => req.destroy(new Error(`bridge ${path}: no answer within ${TIMEOUT_MS} ms`)));
  req.on('error', (err) => finish(err));
  return req;
}

/** `user@host` of a Haraka address (a getter in Haraka 3.3; a method in older releases), '' for <>. */
exports.addressOf = function (address) {
  if (!address) return '';
  return typeof address.address === 'function' ? address.address() : address.address || '';
};

/** POST a JSON body; callback(err, status, answer). */
exports.postJson = function (path, payload, callback) {
  const body = Buffer.from(JSON.stringify(payload));
  request(path, { 'content-type': 'application/json', 'content-length': body.length }, callback).end(body);
};

/** POST a stream (the message) with the envelope in a header; callback(err, status, answer). */
exports.postStream = function (path, envelope, stream, callback) {
  const req = request(
    path,
    {
      'content-type': 'message/rfc822',
      'x-mailroom-envelope': Buffer.from(JSON.stringify(envelope)).toString('base64'),
    },
    callback,
  );
  stream.on('error', (err) => req.destroy(err));
  stream.pipe(req);
};
