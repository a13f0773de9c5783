// Filling a message's `{name}` values: shared by the page (which loads only English and this) and the server. Pure.

/** `template` with each `{name}` replaced by `values[name]` (a name without a value stays as written). */
export function fillMessage(template: string, values: Record<string, string | number> = {}): string {
  return template.replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
}
