// Server-rendered HTML for the demo stores: one escaping function, one page frame, one money formatter.
import { unitsToDecimal } from './money.js';

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Tagged template: interpolations are escaped unless wrapped in raw(). */
export class Raw {
  constructor(readonly html: string) {}
}
export const raw = (html: string) => new Raw(html);

export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  const render = (v: unknown): string =>
    v instanceof Raw ? v.html : Array.isArray(v) ? v.map(render).join('') : v === undefined || v === null || v === false ? '' : escapeHtml(v);
  return raw(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ''), ''));
}

const CSS = `
  *{box-sizing:border-box} body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#1d1d1f;background:#fafaf7}
  header{display:flex;justify-content:space-between;align-items:center;padding:14px 28px;background:#fff;border-bottom:1px solid #e5e5e0}
  header a{color:inherit;text-decoration:none;font-weight:600} main{max-width:980px;margin:0 auto;padding:24px}
  .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:20px}
  .card{background:#fff;border:1px solid #e5e5e0;border-radius:10px;padding:14px} .card img{width:100%;border-radius:6px}
  table{width:100%;border-collapse:collapse;background:#fff} th,td{padding:8px 10px;border-bottom:1px solid #eee;text-align:left}
  button,.button{background:#1d1d1f;color:#fff;border:0;border-radius:6px;padding:8px 16px;font:inherit;cursor:pointer;text-decoration:none;display:inline-block}
  button.secondary,.button.secondary{background:#e5e5e0;color:#1d1d1f} .muted{color:#6e6e73} .notice{background:#fff7d6;padding:10px 14px;border-radius:6px}
  .error{background:#ffe3e3;padding:14px;border-radius:6px} select,input{font:inherit;padding:4px 6px}
  .badge{display:inline-block;padding:1px 8px;border-radius:10px;background:#eee;font-size:13px} .badge.paid{background:#d8f5dd} .badge.pending{background:#fff0c2}`;

export function page(opts: { title: string; header?: Raw; body: Raw; head?: Raw }): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${opts.title}</title><style>${raw(CSS)}</style>${opts.head}</head>
<body>${opts.header ?? html`<header><span>${opts.title}</span></header>`}<main>${opts.body}</main></body></html>`.html;
}

/**
 * 2490 units of a two-decimal EUR store → "€24.90", with the store's own decimals (the platform's rule, passed in), from
 * the exact decimal string (no float on the way).
 */
export function formatMoney(units: number, currency: string, decimals: number): string {
  const options = { style: 'currency', currency, minimumFractionDigits: decimals, maximumFractionDigits: decimals } as const;
  const format = new Intl.NumberFormat('en-IE', options).format as (value: string) => string;
  return format(unitsToDecimal(units, decimals));
}
