/**
 * Case folding for comparisons that ignore case, computed in JavaScript so that both databases
 * compare the same bytes through an index (SQLite's LOWER() folds ASCII only, MariaDB's all of
 * Unicode). Contact property values are stored with this fold beside them, and segment filter
 * values are folded the same way (core/audience/contacts/property-value-row.ts).
 *
 * toLowerCase(), with two changes that keep it one character for one character (a folded value
 * fits the column of the original, and `contains` must not depend on the letters around it):
 * U+0130 (İ) folds to a plain "i" (toLowerCase gives "i" + a combining dot, as MariaDB's LOWER()
 * does not), and the final sigma "ς" folds to "σ" (toLowerCase picks one or the other by the
 * letters around it).
 */
export function foldCase(value: string): string {
  return value
    .replace(/\u0130/g, 'i')
    .toLowerCase()
    .replace(/\u03c2/g, '\u03c3');
}

/** Whether folding changes nothing beyond ASCII: SQL LOWER() then gives foldCase's answer in both dialects. */
export function isAscii(value: string): boolean {
  return /^[\x00-\x7f]*$/.test(value);
}
