// A browser as far as a server can tell without JavaScript: one cookie jar, requests to one site, redirects
// followed only when asked (tests read a 303's Location themselves). What the real WooCommerce tier's shopper
// and merchant use against WordPress (cart cookies, login cookies, nonces in forms).

export interface Page {
  status: number;
  headers: Headers;
  /** Where the answer redirects to (absolute), if it does. */
  location: string | null;
  text: string;
  url: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A form (application/x-www-form-urlencoded), a JSON value, or a multipart FormData. */
  form?: Record<string, string>;
  json?: unknown;
  multipart?: FormData;
  /** Follow redirects (as a browser does after a form post); default false. */
  follow?: boolean;
  timeoutMs?: number;
}

export class CookieBrowser {
  private readonly jar = new Map<string, string>();

  constructor(readonly base: string) {}

  /** Cookie names and values the site set (and did not expire). */
  cookies(): ReadonlyMap<string, string> {
    return this.jar;
  }

  async request(pathOrUrl: string, opts: RequestOptions = {}): Promise<Page> {
    let url = new URL(pathOrUrl, this.base).href;
    let method = opts.method ?? (opts.form || opts.json !== undefined || opts.multipart ? 'POST' : 'GET');
    let body: string | FormData | undefined = opts.form ? new URLSearchParams(opts.form).toString() : opts.json !== undefined ? JSON.stringify(opts.json) : opts.multipart;
    const contentType = opts.form ? 'application/x-www-form-urlencoded' : opts.json !== undefined ? 'application/json' : undefined;
    for (let hops = 0; ; hops++) {
      const res = await fetch(url, {
        method,
        redirect: 'manual',
        body,
        headers: {
          ...(contentType && body !== undefined ? { 'content-type': contentType } : {}),
          ...(this.jar.size ? { cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
          ...opts.headers,
        },
        signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
      });
      this.store(res.headers.getSetCookie());
      const location = res.headers.get('location') ? new URL(res.headers.get('location')!, url).href : null;
      const text = await res.text();
      if (!opts.follow || !location || res.status < 300 || res.status >= 400 || hops >= 10) return { status: res.status, headers: res.headers, location, text, url };
      url = location;
      if (res.status !== 307 && res.status !== 308) {
        method = 'GET';
        body = undefined;
      }
    }
  }

  private store(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expires = attributes.map((a) => a.trim()).find((a) => /^expires=/i.test(a));
      const maxAge = attributes.map((a) => a.trim()).find((a) => /^max-age=/i.test(a));
      const gone = (expires && Date.parse(expires.slice(8)) < Date.now()) || (maxAge && Number(maxAge.slice(8)) <= 0) || value === 'deleted';
      if (gone) this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }
}

/** The value of a form field named `name` in an HTML page (hidden inputs: nonces, referers). */
export function formValue(html: string, name: string): string | undefined {
  const input = new RegExp(`<input[^>]*name=["']${name.replace(/[[\]]/g, '\\$&')}["'][^>]*>`, 'i').exec(html)?.[0];
  return input ? /value=["']([^"']*)["']/i.exec(input)?.[1]?.replace(/&amp;/g, '&') : undefined;
}
