'use strict';
// End of DATA: hand the message to Mailroom, which writes it to the spool (fsynced) and commits
// its rows before answering; only then do we say 250. Any failure of ours is 451: the sender
// keeps the message and retries, so nothing that got a 250 is lost.
//
// The hand-off runs at data_post, not queue: Haraka answers a queue hook's DENYSOFT with a fixed
// 450, while data_post replies carry our DSN's own code (451 4.3.0). The queue hook then only
// confirms what data_post stored.
const DSN = require('haraka-dsn');
const bridge = require('./mailroom_bridge_client.cjs');

exports.register = function () {
  this.register_hook('data_post', 'store_message');
  this.register_hook('queue', 'confirm_stored');
};

exports.store_message = function (next, connection) {
  const txn = connection.transaction;
  const envelope = {
    mail_from: bridge.addressOf(txn.mail_from),
    recipients: txn.notes.mailroom_recipients || [],
    remote_ip: connection.remote.ip,
    helo: connection.hello ? connection.hello.host : null,
    tls: Boolean(connection.tls && connection.tls.enabled),
    transaction_id: txn.uuid,
  };
  bridge.postStream('/messages', envelope, txn.message_stream, (err, status, answer) => {
    if (err || !answer) {
      connection.logerror(this, `storing the message failed: ${err ? err.message : `HTTP ${status}`}`);
      return next(DENYSOFT, DSN.create(451, 'Temporary local problem, try again later', 3, 0));
    }
    if (status === 200) {
      txn.notes.mailroom_id = answer.id;
      txn.notes.mailroom_queued_as =
        Array.isArray(answer.queued_as) && answer.queued_as.length > 0 ? answer.queued_as : [answer.id];
      return next();
    }
    if (status >= 500 && answer.permanent) return next(DENY, DSN.create(554, answer.message, 6, 0));
    return next(DENYSOFT, DSN.create(451, answer.message || 'Temporary local problem, try again later', 3, 0));
  });
};

// The 250 names the received email's API id (GET /emails/receiving/<id>). A message addressed
// to several teams made one received email each: the 250 lists them (the first is also the raw
// file's name), at most NAMED_IDS so the reply stays one short line.
const NAMED_IDS = 5;

function queuedAsText(ids) {
  const more = ids.length > NAMED_IDS ? ` (+${ids.length - NAMED_IDS} more)` : '';
  return `Ok: queued as ${ids.slice(0, NAMED_IDS).join(', ')}${more}`;
}

exports.confirm_stored = function (next, connection) {
  const ids = connection.transaction.notes.mailroom_queued_as;
  if (!connection.transaction.notes.mailroom_id || !ids)
    return next(DENYSOFT, DSN.create(451, 'Temporary local problem, try again later', 3, 0));
  next(OK, queuedAsText(ids));
};
