'use strict';
// Haraka lives only as long as the Mailroom process that started it: its stdin is a pipe from
// that process, and when the pipe closes (Mailroom stopped or was killed) Haraka shuts down
// gracefully, so no orphaned MX keeps the port with nowhere to store mail.
exports.register = function () {
  if (!process.env.MAILROOM_INBOUND_SOCKET || process.stdin.isTTY) return;
  const shutdown = () => process.kill(process.pid, 'SIGTERM');
  process.stdin.on('end', shutdown);
  process.stdin.on('close', shutdown);
  process.stdin.on('error', shutdown);
  process.stdin.resume();
};
