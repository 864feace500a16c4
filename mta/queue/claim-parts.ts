/** Consecutive emails' deliveries in parts of about `size` (an email is never split). */
export function claimSizedParts<T extends { deliveries: unknown[] }>(entries: T[], size: number): T[][] {
  const parts: T[][] = [];
  let part: T[] = [];
  let count = 0;
  for (const entry of entries) {
    if (count > 0 && count + entry.deliveries.length > size) {
      parts.push(part);
      part = [];
      count = 0;
    }
    part.push(entry);
    count += entry.deliveries.length;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}
