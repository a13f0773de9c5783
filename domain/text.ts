// Text the service can store. PostgreSQL's text and jsonb cannot hold U+0000 (NUL), and a lone UTF-16
// surrogate ("\ud83d" in JSON) is not a character at all: jsonb refuses it and text would silently turn it
// into U+FFFD. Input carrying either is refused as INVALID_INPUT (api/validation.ts, one rule for every
// string of every route); what must be kept anyway (webhook bodies for audit) is made storable with U+FFFD.
// Pure module: shared by api/ and anything that records text from outside.

/** NUL, or a surrogate code unit that is not half of a pair (with the u flag a pair is one code point). */
const UNSTORABLE = /[\u0000\p{Cs}]/u;
const UNSTORABLE_ALL = /[\u0000\p{Cs}]/gu;

export type TextProblem = 'nul' | 'surrogate';

export const TEXT_PROBLEM_MESSAGES: Record<TextProblem, string> = {
  nul: 'must not contain U+0000 (NUL)',
  surrogate: 'must not contain an unpaired UTF-16 surrogate (not a character)',
};

/** What keeps this string out of the database, if anything. */
export function textProblem(text: string): TextProblem | undefined {
  const found = UNSTORABLE.exec(text);
  if (!found) return undefined;
  return found[0] === '\u0000' ? 'nul' : 'surrogate';
}

export interface UnstorableText {
  /** Where it is: object keys and array indexes from the root. For a bad key, the path of the object holding it. */
  path: Array<string | number>;
  problem: TextProblem;
  /** The bad text is a property name, not a value. */
  inKey: boolean;
}

/** Objects as JSON, query and route parsers make them (some without a prototype), not Buffers or Dates. */
const isPlainObject = (value: unknown): value is Record<string, unknown> => Object.prototype.toString.call(value) === '[object Object]';

/**
 * The first string (value or property name, in document order) that cannot be stored, in any JSON-like
 * value: parsed bodies, query strings, route params, headers. Iterative, so a deeply nested body cannot
 * exhaust the stack.
 */
export function findUnstorableText(root: unknown): UnstorableText | undefined {
  const stack: Array<{ value: unknown; path: Array<string | number> }> = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { path, problem, inKey: false };
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i] });
    } else if (isPlainObject(value)) {
      const keys = Object.keys(value);
      for (const key of keys) {
        const problem = textProblem(key);
        if (problem) return { path, problem, inKey: true };
      }
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: value[keys[i]!], path: [...path, keys[i]!] });
    }
  }
  return undefined;
}

/** The string with every NUL and unpaired surrogate replaced by U+FFFD (for text kept as evidence). */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE_ALL, '\uFFFD');
}

/** A JSON-like value with every string and property name made storable (a copy; the input is untouched). */
export function storableJson<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => storableJson(v)) as T;
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableText(k), storableJson(v)])) as T;
  return value;
}
