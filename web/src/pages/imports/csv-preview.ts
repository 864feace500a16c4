/**
 * The uploaded file read in the browser before anything is sent: its header, its records (the
 * first CHECKED_ROWS kept for the type check) and how many there are (the progress bar's
 * whole). Same reading as the appliance's: a UTF-8 BOM skipped, the delimiter sniffed from the
 * header among , ; tab |, quoted fields with delimiters, doubled quotes and line breaks, blank
 * lines ignored, and row numbers as a spreadsheet shows them (the header is row 1).
 */
export type CsvPreview = {
  header: string[];
  records: { row: number; fields: string[] }[];
  rowCount: number;
  /** More rows than were kept for the check. */
  truncated: boolean;
};

export const CHECKED_ROWS = 10_000;
const DELIMITERS = [',', ';', '\t', '|'];

export function sniffDelimiter(text: string): string {
  const counts = new Map(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  let best = ',';
  for (const [delimiter, count] of counts) if (count > counts.get(best)!) best = delimiter;
  return best;
}

export function readCsv(input: string): CsvPreview {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const delimiter = sniffDelimiter(text);
  const records: CsvPreview['records'] = [];
  let header: string[] | null = null;
  let rowCount = 0;
  let row = 1;
  let startRow = 1;
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  const endRecord = () => {
    fields.push(field);
    field = '';
    const blank = fields.length === 1 && fields[0]!.trim() === '';
    if (header === null) header = fields.map((f) => f.trim());
    else if (!blank) {
      rowCount++;
      if (records.length < CHECKED_ROWS) records.push({ row: startRow, fields });
    }
    fields = [];
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else {
        if (char === '\n') row++;
        field += char;
      }
    } else if (char === '"' && field.trim() === '') {
      quoted = true;
      field = '';
    } else if (char === delimiter) {
      fields.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      row++;
      startRow = row;
    } else field += char;
  }
  if (field !== '' || fields.length > 0) endRecord();
  return { header: header ?? [], records, rowCount, truncated: rowCount > records.length };
}
