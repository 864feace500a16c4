/**
 * Coalesces fsyncs of one target: a caller waits for the first sync that starts after it asked,
 * so many concurrent writers share one fsync (group commit) and nobody waits on a timer.
 */
export class CoalescedSync {
  private current: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(private readonly sync: () => Promise<void>) {}

  request(): Promise<void> {
    if (!this.current) {
      this.current = this.sync().finally(() => this.promote());
      return this.current;
    }
    this.next ??= this.current.then(
      () => this.sync(),
      () => this.sync(),
    );
    return this.next;
  }

  private promote(): void {
    const next = this.next;
    this.next = undefined;
    this.current = next ? next.finally(() => this.promote()) : undefined;
  }
}
