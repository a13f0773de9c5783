// Form state with the API's answers in place: `run` submits, and an ApiError's field messages land on the
// fields they concern (matched by path, or by the field the message names: "password: too short"); what
// matches no field of the form is shown at its top.
import { useState } from 'preact/hooks';
import { ApiError } from './api.js';

export interface FormState<V> {
  values: V;
  set: <K extends keyof V>(key: K, value: V[K]) => void;
  setAll: (values: V) => void;
  /** Field path → message (API or local validation). */
  errors: Record<string, string>;
  setErrors: (errors: Record<string, string>) => void;
  /** The message that belongs to no field. */
  error: string | null;
  /** A success message after the last submit. */
  notice: string | null;
  setNotice: (notice: string | null) => void;
  busy: boolean;
  /** Runs `work`; an ApiError fills `errors`/`error`. `fieldNames` are the paths this form shows. */
  run: (work: () => Promise<string | void>) => Promise<boolean>;
}

/** Splits an ApiError into the messages of known fields and one general message. */
export function splitError(err: unknown, fieldNames: readonly string[]): { errors: Record<string, string>; error: string | null } {
  if (!(err instanceof ApiError)) return { errors: {}, error: err instanceof Error ? err.message : String(err) };
  const errors: Record<string, string> = {};
  const unmatched: string[] = [];
  for (const [path, message] of Object.entries(err.fields)) {
    const name = fieldNames.find((f) => f === path) ?? fieldNames.find((f) => path.startsWith(`${f}.`));
    if (name) errors[path === name ? name : path] = message;
    else unmatched.push(`${path}: ${message}`);
  }
  // Messages like "shop: must be <name>.myshopify.com" without details.fields.
  if (Object.keys(err.fields).length === 0) {
    const m = /^([A-Za-z][\w.]*): (.+)$/.exec(err.message);
    const name = m && fieldNames.find((f) => f === m[1] || f.endsWith(`.${m[1]}`));
    if (m && name) errors[name] = m[2]!;
  }
  const matched = Object.keys(errors).length > 0;
  const error = matched ? (unmatched.length ? unmatched.join('; ') : null) : err.message;
  return { errors, error };
}

export function useForm<V extends object>(initial: V, fieldNames: readonly string[] = Object.keys(initial)): FormState<V> {
  const [values, setValues] = useState<V>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return {
    values,
    set: (key, value) => {
      setValues((v) => ({ ...v, [key]: value }));
      // The merchant is fixing it: the message goes once the value changes.
      setErrors((e) => {
        if (!(String(key) in e)) return e;
        const { [String(key)]: _gone, ...rest } = e;
        return rest;
      });
    },
    setAll: setValues,
    errors,
    setErrors,
    error,
    notice,
    setNotice,
    busy,
    async run(work) {
      setBusy(true);
      setError(null);
      setNotice(null);
      setErrors({});
      try {
        const message = await work();
        if (message) setNotice(message);
        return true;
      } catch (err) {
        const split = splitError(err, fieldNames);
        setErrors(split.errors);
        setError(split.error);
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}

/** A local validation failure, shown like the API's own INVALID_INPUT. */
export function invalid(fields: Record<string, string>): ApiError {
  return new ApiError(Object.entries(fields).map(([k, v]) => `${k}: ${v}`).join('; '), 'INVALID_INPUT', 400, fields);
}
