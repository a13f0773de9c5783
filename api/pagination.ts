// Keyset pagination, newest first, for every cursor-paged list: rows sorted by (created_at desc, <key> desc), the
// cursor the last item's (createdAt, key) as opaque base64url JSON. A cursor this list did not hand out answers 400
// INVALID_INPUT naming querystring.cursor. Query fields: api/schemas/pagination.ts.
import { AppError } from '../domain/errors.js';
import { PAGE_SIZE_DEFAULT } from './schemas/pagination.js';

/** The pages of one list whose rows are keyed by `key` (a string column unique with created_at); `isKey` says what a key of this list looks like. */
export function keysetPages<K extends string>(key: K, isKey: (value: string) => boolean) {
  type Row = { createdAt: Date } & Record<K, string>;
  const invalid = () => new AppError('INVALID_INPUT', 'querystring.cursor: not a cursor of this list', { fields: { 'querystring.cursor': 'not a cursor of this list' } });

  const encode = (row: Row) => Buffer.from(JSON.stringify([row.createdAt.toISOString(), row[key]])).toString('base64url');

  function decode(value: string): { createdAt: Date; key: string } {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string' || !isKey(parsed[1])) throw invalid();
    const createdAt = new Date(parsed[0]);
    if (Number.isNaN(createdAt.getTime())) throw invalid();
    return { createdAt, key: parsed[1] };
  }

  return {
    /** How many rows to read: one more than the page, to know whether another page follows. */
    take: (limit: number | undefined) => (limit ?? PAGE_SIZE_DEFAULT) + 1,
    /** The sort order the cursor follows. */
    orderBy: [{ createdAt: 'desc' as const }, { [key]: 'desc' as const } as Record<K, 'desc'>],
    /** Where-clauses for the rows after `cursor` (none without one). */
    after(cursor: string | undefined) {
      if (!cursor) return [];
      const c = decode(cursor);
      return [{ OR: [{ createdAt: { lt: c.createdAt } }, { createdAt: c.createdAt, [key]: { lt: c.key } }] }];
    },
    /** The page out of the `take` rows read, and the cursor of the next (null on the last). */
    page<T extends Row>(rows: T[], limit: number | undefined) {
      const size = limit ?? PAGE_SIZE_DEFAULT;
      const items = rows.slice(0, size);
      const last = items[items.length - 1];
      return { items, nextCursor: rows.length > size && last ? encode(last) : null };
    },
  };
}
