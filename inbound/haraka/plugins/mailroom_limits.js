'use strict';
// Connection and recipient limits: a client may hold MAILROOM_INBOUND_MAX_CONNECTIONS_PER_CLIENT
// connections at once (more get 421 and are closed), and a message may name
// MAILROOM_INBOUND_MAX_RECIPIENTS recipients (more get 452 4.5.3; the sender sends them later).
// Haraka runs as one process here (nodes=0), so one in-memory count per client address is exact.
const DSN = require('haraka-dsn');

const maxConnections = Number(process.env.MAILROOM_INBOUND_MAX_CONNECTIONS_PER_CLIENT || 20);
const maxRecipients = Number(process.env.MAILROOM_INBOUND_MAX_RECIPIENTS || 100);
const open = new Map();

exports.register = function () {
  this.register_hook('connect', 'count_connection');
  this.register_hook('disconnect', 'uncount_connection');
  this.register_hook('rcpt', 'limit_recipients');
};

exports.count_connection = function (next, connection) {
  const ip = connection.remote.ip;
  const count = (open.get(ip) || 0) + 1;
  open.set(ip, count);
  connection.notes.mailroom_counted = true;
  if (count > maxConnections) {
    return next(DENYSOFTDISCONNECT, DSN.create(421, `Too many connections from ${ip}, try again later`, 7, 0));
  }
  next();
};

exports.uncount_connection = function (next, connection) {
  if (connection.notes.mailroom_counted) {
    const ip = connection.remote.ip;
    const left = (open.get(ip) || 1) - 1;
    if (left <= 0) open.delete(ip);
    else open.set(ip, left);
  }
  next();
};

exports.limit_recipients = function (next, connection) {
  const accepted = connection.transaction.notes.mailroom_recipients || [];
  if (accepted.length >= maxRecipients) {
    return next(DENYSOFT, DSN.create(452, `Too many recipients: at most ${maxRecipients} per message`, 5, 3));
  }
  next();
};
