// CSV cells and records: RFC 4180 quoting and the formula-injection guard.
import { describe, expect, it } from 'vitest';
import { csvCell, csvRecord } from './csv.js';

describe('csvCell', () => {
  it('leaves plain text and numbers as they are', () => {
    expect(csvCell('Ada Lovelace')).toBe('Ada Lovelace');
    expect(csvCell(12.5)).toBe('12.5');
    expect(csvCell('Müller')).toBe('Müller');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
  });

  it('quotes a comma, a quote, CR or LF, doubling inner quotes', () => {
    expect(csvCell('Doe, Jane')).toBe('"Doe, Jane"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('line1\nline2')).toBe('"line1\nline2"');
    expect(csvCell('a\r\nb')).toBe('"a\r\nb"');
  });

  it.each(['=1+1', '+49 30 555', '-2', '@SUM(A1)', '\tx', '\rx'])('prefixes %j with a quote so it stays text', (value) => {
    const cell = csvCell(value);
    expect(cell.replace(/^"/, '').startsWith(`'${value[0]}`)).toBe(true);
  });

  it('guards and quotes at once', () => {
    expect(csvCell('=HYPERLINK("http://x.test","click")')).toBe('"\'=HYPERLINK(""http://x.test"",""click"")"');
  });
});

describe('csvRecord', () => {
  it('joins cells with commas and ends with CRLF', () => {
    expect(csvRecord(['a', 'b,c', null, 3])).toBe('a,"b,c",,3\r\n');
  });
});
