/**
 * The outcomes of one destination run that are still being written. Sending goes on while
 * they commit (settles are grouped, see DeliveryService); the first failure is kept, stops
 * further sending (`failed`), and is what `done()` rejects with once all have finished.
 */
export class Settling {
  private readonly pending: Array<Promise<void>> = [];
  private failure: { err: unknown } | null = null;

  get failed(): boolean {
    return this.failure !== null;
  }

  add(settle: Promise<void>): void {
    this.pending.push(settle.catch((err: unknown) => void (this.failure ??= { err })));
  }

  async done(): Promise<void> {
    await Promise.all(this.pending);
    if (this.failure) throw this.failure.err;
  }
}
