import { format } from 'node:util';

/**
 * The SMTP conversation of a session, as nodemailer's transaction log reports it (C: client,
 * S: server, * events). Bounded: past `maxBytes` the rest is dropped with a marker, so a
 * chatty or hostile server cannot fill the attempts table. `since(mark)` gives one message's
 * part of a reused connection.
 */
export class Transcript {
  private lines: string[] = [];
  private bytes = 0;
  private truncated = false;

  constructor(private readonly maxBytes: number) {}

  add(line: string): void {
    if (this.truncated) return;
    const stamped = line.length > 2000 ? `${line.slice(0, 2000)}...` : line;
    if (this.bytes + stamped.length > this.maxBytes) {
      this.lines.push('* transcript truncated');
      this.truncated = true;
      return;
    }
    this.lines.push(stamped);
    this.bytes += stamped.length + 1;
  }

  mark(): number {
    return this.lines.length;
  }

  since(mark = 0): string {
    return this.lines.slice(mark).join('\n');
  }

  /**
   * The conversation so far, and a fresh start for the next attempt: a connection carrying many
   * messages (and reused across claims) keeps each attempt's transcript within the bound.
   */
  take(): string {
    const text = this.since(0);
    this.lines = [];
    this.bytes = 0;
    this.truncated = false;
    return text;
  }

  /** A bunyan-style logger for nodemailer's SMTPConnection that writes into this transcript. */
  logger() {
    const write = (entry: unknown, message?: unknown, ...args: unknown[]) => {
      const tnx = typeof entry === 'object' && entry !== null ? (entry as { tnx?: string }).tnx : undefined;
      const text = typeof entry === 'string' ? format(entry, message, ...args) : format(String(message ?? ''), ...args);
      this.add(`${tnx === 'client' ? 'C:' : tnx === 'server' ? 'S:' : '*'} ${text}`);
    };
    return { trace: () => undefined, debug: write, info: write, warn: write, error: write, fatal: write };
  }
}
