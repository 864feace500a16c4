import type { SmtpSession } from './smtp-session.js';

type Idle = { session: SmtpSession; timer: NodeJS.Timeout };

export type SessionCacheOptions = {
  /** An idle connection is closed (QUIT) after this long unused. */
  idleMs: number;
  /** A connection is not reused once it is this old, however busy (servers tire of long sessions). */
  maxAgeMs: number;
  /** Idle connections kept per key; more are closed at once. */
  maxIdlePerKey: number;
};

/**
 * Open SMTP connections between uses, per server address, port and egress address (and the
 * TLS settings they were opened with), so consecutive claims for one destination do not each
 * pay for a TCP handshake, a greeting, EHLO and perhaps STARTTLS. Connections stay only briefly
 * (Postfix's connection cache keeps them 2 s by default) and are checked with RSET before reuse:
 * one a server closed while it sat idle is dropped, and its messages go over a new connection
 * rather than failing.
 */
export class SessionCache {
  private readonly idle = new Map<string, Idle[]>();
  private readonly opened = new WeakMap<SmtpSession, number>();

  constructor(private readonly options: SessionCacheOptions) {}

  /** A live idle connection for `key`, or none. */
  async take(key: string): Promise<SmtpSession | undefined> {
    for (;;) {
      const entry = this.idle.get(key)?.pop();
      if (!entry) return undefined;
      if (this.idle.get(key)?.length === 0) this.idle.delete(key);
      clearTimeout(entry.timer);
      if (await entry.session.probe()) return entry.session;
      entry.session.close();
    }
  }

  /** Remembers when a new connection was opened (its age limits reuse). */
  opening(session: SmtpSession): void {
    this.opened.set(session, Date.now());
  }

  /** A connection done with its work: kept for the next claim if it is healthy and young enough, else closed. */
  release(key: string, session: SmtpSession): void {
    const openedAt = this.opened.get(session) ?? 0;
    const entries = this.idle.get(key) ?? [];
    if (
      !session.usable ||
      Date.now() - openedAt > this.options.maxAgeMs ||
      entries.length >= this.options.maxIdlePerKey
    ) {
      session.close();
      return;
    }
    const entry: Idle = { session, timer: setTimeout(() => this.expire(key, entry), this.options.idleMs) };
    // An idle connection must not keep the process alive.
    entry.timer.unref();
    entries.push(entry);
    this.idle.set(key, entries);
  }

  /** Closes every idle connection (the worker stops). */
  closeAll(): void {
    for (const entries of this.idle.values()) {
      for (const entry of entries) {
        clearTimeout(entry.timer);
        entry.session.close();
      }
    }
    this.idle.clear();
  }

  private expire(key: string, entry: Idle): void {
    const entries = this.idle.get(key);
    const index = entries?.indexOf(entry) ?? -1;
    if (index < 0) return;
    entries!.splice(index, 1);
    if (entries!.length === 0) this.idle.delete(key);
    entry.session.close();
  }
}
