/**
 * Error-level log lines of the appliance's processes, counted by process, message and error code
 * instead of printed one by one (a run on SQLite can log hundreds of the same SQLITE_BUSY line);
 * the first line of each kind is kept, shortened, as an example.
 */
export class ErrorLog {
  private readonly kinds = new Map<string, { count: number; example: string }>();

  add(process: string, line: string): void {
    let entry: { msg?: string; err?: { code?: string; message?: string } } = {};
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      // not a log line (node's own output): its first words name it
    }
    const kind = `${process}: ${entry.msg ?? line.slice(0, 80)}${entry.err?.code ? ` (${entry.err.code})` : ''}`;
    const known = this.kinds.get(kind);
    if (known) known.count++;
    else this.kinds.set(kind, { count: 1, example: exampleOf(entry.err?.message ?? line) });
  }

  /** One line per kind, most frequent first; none when nothing was logged. */
  summary(): string[] {
    return [...this.kinds.entries()]
      .sort((a, b) => b[1].count - a[1].count)
      .map(([kind, { count, example }]) => `${count} x ${kind}: ${example}`);
  }
}

/** A driver's message often starts with the whole SQL statement: keep its reason (after " - "). */
function exampleOf(message: string): string {
  const reason = message.lastIndexOf(' - ');
  const text = reason >= 0 ? `${message.slice(0, 40)}... - ${message.slice(reason + 3)}` : message;
  return text.slice(0, 200);
}
