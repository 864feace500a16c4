'use strict';
// RCPT TO: accept only the addresses Mailroom receives for (receiving domains, our VERP bounce
// addresses, the feedback-loop addresses); everything else is 550 5.1.1 now, so we never accept
// a message and bounce it later (backscatter). Our own failure is 451 4.3.0: the sender retries.
const DSN = require('haraka-dsn');
const bridge = require('./mailroom_bridge_client.cjs');

exports.register = function () {
  this.register_hook('rcpt', 'decide_recipient');
};

exports.decide_recipient = function (next, connection, params) {
  const txn = connection.transaction;
  const recipient = params[0];
  const payload = {
    recipient: bridge.addressOf(recipient),
    sender: bridge.addressOf(txn.mail_from),
    remote_ip: connection.remote.ip,
  };
  bridge.postJson('/rcpt', payload, (err, status, answer) => {
    if (err || status !== 200 || !answer) {
      connection.logerror(this, `recipient decision failed: ${err ? err.message : `HTTP ${status}`}`);
      return next(DENYSOFT, DSN.create(451, 'Temporary local problem, try again later', 3, 0));
    }
    if (answer.decision === 'accept') {
      if (!txn.notes.mailroom_recipients) txn.notes.mailroom_recipients = [];
      txn.notes.mailroom_recipients.push(payload.recipient);
      return next(OK);
    }
    if (answer.decision === 'defer') return next(DENYSOFT, DSN.create(451, answer.message, 3, 0));
    return next(DENY, DSN.create(550, answer.message || 'No such user here', 1, 1));
  });
};
