/**
 * A plain-text body that makes the composed message (headers included) about `size` bytes:
 * ASCII lines well under 78 characters, so the composer sends them as they are (7bit) and the
 * size on the wire is the size asked for. The benchmark prints the measured average.
 */
const HEADERS = 275; // From, To, Subject, Message-ID, Date, Content-Transfer-Encoding, MIME-Version, Content-Type as composed

const LINE = 'The quick brown fox jumps over the lazy dog while the queue drains.';

export function bodyOfSize(size: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length < size - HEADERS; i++) {
    const line = `${String(i).padStart(5, '0')} ${LINE}`;
    lines.push(line);
    length += line.length + 2; // CRLF on the wire
  }
  return lines.join('\r\n');
}
