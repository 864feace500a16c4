import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

export type ReceivedMessage = {
  from: string;
  to: string[];
  data: Buffer;
  remoteAddress: string;
  /** The SMTP session (connection) it arrived over. */
  session: string;
  /** When the message arrived (end of DATA). */
  at: Date;
  helo: string;
  secure: boolean;
  localAddress: string;
};

/** A reply the sink gives at a stage instead of accepting; `times` limits how often (then it accepts). */
export type SinkFault = {
  stage: 'mail' | 'rcpt' | 'data';
  code: number;
  message: string;
  recipient?: string;
  remoteAddress?: string;
  times?: number;
  /** The fault applies only once this many messages have been accepted (a receiver that throttles after N). */
  afterMessages?: number;
};

/**
 * A real SMTP server on a loopback address (smtp-server), standing in for a recipient's mail
 * server. It records what arrives (with the client's address and HELO, as the receiving side
 * sees them) and can refuse at MAIL, RCPT or after DATA on demand.
 */
export class SmtpSink {
  readonly messages: ReceivedMessage[] = [];
  faults: SinkFault[] = [];
  connections = 0;
  readonly errors: string[] = [];
  /** Holds the reply at RCPT (the client waits) and tells the test it got there. */
  holdRcpt: { ms: number; reached: () => void } | null = null;

  private constructor(
    private readonly server: SMTPServer,
    readonly host: string,
  ) {}

  static async start(host: string, port = 0, options: { starttls?: boolean } = {}): Promise<SmtpSink> {
    let sink!: SmtpSink;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: options.starttls === false ? ['AUTH', 'STARTTLS'] : ['AUTH'],
      logger: false,
      size: 50 * 1024 * 1024,
      onConnect: (_session, callback) => {
        sink.connections++;
        callback();
      },
      onMailFrom: (_address, session, callback) => callback(sink.fault('mail', undefined, session.remoteAddress)),
      onRcptTo: (address, session, callback) => {
        const hold = sink.holdRcpt;
        if (!hold) return callback(sink.fault('rcpt', address.address, session.remoteAddress));
        sink.holdRcpt = null;
        hold.reached();
        setTimeout(() => callback(sink.fault('rcpt', address.address, session.remoteAddress)), hold.ms);
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const fault = sink.fault('data', undefined, session.remoteAddress);
          if (fault) return callback(fault);
          sink.messages.push(received(session, Buffer.concat(chunks)));
          callback();
        });
      },
    });
    sink = new SmtpSink(server, host);
    // A client killed mid-conversation resets its socket: that is a test scenario, not a failure.
    server.on('error', (err: Error) => sink.errors.push(err.message));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return sink;
  }

  get port(): number {
    return (this.server.server.address() as AddressInfo).port;
  }

  private fault(
    stage: SinkFault['stage'],
    recipient?: string,
    remoteAddress?: string,
  ): (Error & { responseCode: number }) | undefined {
    const from = remoteAddress?.replace(/^::ffff:/, '');
    const fault = this.faults.find(
      (f) =>
        f.stage === stage &&
        (f.times ?? 1) > 0 &&
        this.messages.length >= (f.afterMessages ?? 0) &&
        (!f.recipient || f.recipient === recipient) &&
        (!f.remoteAddress || f.remoteAddress === from),
    );
    if (!fault) return undefined;
    if (fault.times !== undefined) fault.times--;
    return Object.assign(new Error(fault.message), { responseCode: fault.code });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function received(session: SMTPServerSession, data: Buffer): ReceivedMessage {
  return {
    from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
    to: session.envelope.rcptTo.map((r) => r.address),
    data,
    remoteAddress: session.remoteAddress.replace(/^::ffff:/, ''),
    at: new Date(),
    session: session.id,
    helo: session.hostNameAppearsAs,
    secure: session.secure,
    localAddress: session.localAddress.replace(/^::ffff:/, ''),
  };
}
