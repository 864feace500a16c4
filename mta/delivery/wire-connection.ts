import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { WireDataStream } from './wire-data-stream.js';

type Internals = {
  _envelope: { accepted: string[] };
  _responseActions: Array<(reply: string) => void>;
  _currentDataStream: WireDataStream | false;
  _socket: NodeJS.WritableStream;
  _actionSMTPStream(reply: string, callback: (err: Error | null, reply?: string) => void): void;
  _actionLMTPStream(recipient: string, final: boolean, reply: string, callback: (err: Error | null, reply?: string) => void): void;
};

/**
 * nodemailer's SMTP connection, sending DATA through WireDataStream (see there). The method
 * replaced is nodemailer's `_createSendStream` (nodemailer 10.x), the same steps with the
 * stream class swapped; the debug copy of the message data nodemailer can log is left out (the
 * MTA keeps transcripts of commands and replies, never message bodies).
 */
export class WireConnection extends SMTPConnection {}

Object.defineProperty(WireConnection.prototype, '_createSendStream', {
  value: function createSendStream(this: SMTPConnection & Internals, callback: (err: Error | null, reply?: string) => void): WireDataStream {
    const envelope = this._envelope;
    const dataStream = new WireDataStream();
    if (this.options.lmtp) {
      envelope.accepted.forEach((recipient, i) => {
        const final = i === envelope.accepted.length - 1;
        this._responseActions.push((reply) => this._actionLMTPStream(recipient, final, reply, callback));
      });
    } else {
      this._responseActions.push((reply) => this._actionSMTPStream(reply, callback));
    }
    this._currentDataStream = dataStream;
    dataStream.pipe(this._socket, { end: false });
    dataStream.once('end', () => {
      if (this._currentDataStream === dataStream) this._currentDataStream = false;
      this.logger.info({ tnx: 'message', inByteCount: dataStream.inByteCount, outByteCount: dataStream.outByteCount }, '<%s bytes encoded mime message (source size %s bytes)>', dataStream.outByteCount, dataStream.inByteCount);
    });
    return dataStream;
  },
});
