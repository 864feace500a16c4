'use strict';
// Haraka leaves Nagle's algorithm on: a client that pipelines MAIL, RCPT and DATA then waits
// about 40 ms per message for a delayed acknowledgement (measured by bench:inbound). Replies are
// small and already batched by Haraka, so every connection gets TCP_NODELAY.
exports.register = function () {
  this.register_hook('connect_init', 'no_delay');
};

exports.no_delay = function (next, connection) {
  if (connection.client && typeof connection.client.setNoDelay === 'function') connection.client.setNoDelay(true);
  next();
};
