// CSV as RFC 4180 writes it, safe to open in a spreadsheet: a field with a comma, a double quote, CR or LF is quoted
// (inner quotes doubled), records end with CRLF; a cell that a spreadsheet would read as a formula (it starts with
// = + - @, a tab or a CR) is prefixed with ' (OWASP's advice against CSV injection), so "=HYPERLINK(…)" typed as a
// name on the checkout page stays text. Numbers we write are never negative, so no amount is altered.

/** Starts a spreadsheet would take for a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: null and undefined are empty. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record with its CRLF. */
export function csvRecord(values: ReadonlyArray<string | number | boolean | null | undefined>): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** The UTF-8 byte order mark: Excel reads a file without it as the system's code page and garbles "Müller". */
export const UTF8_BOM = '\uFEFF';
