// Images merchants point us at (their logo, order bump and upsell pictures) are shown on the checkout page,
// so they get the same check wherever they are given: fetched once through the SSRF guard (https, never a
// loopback, private, link-local or metadata address, on any redirect either; security/ssrf.ts), and it must
// answer 200 with an image type. A failed check is INVALID_INPUT naming the field; nothing is stored.
import { AppError } from '../domain/errors.js';
import { UnsafeUrlError, type UrlGuard } from '../security/ssrf.js';

/** The logo: crisp at any size, and what the checkout header is designed for. */
export const LOGO_TYPES: readonly string[] = ['image/png', 'image/svg+xml'];
/** Product pictures, as stores serve them. */
export const PRODUCT_IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif', 'image/svg+xml'];

const MAX_IMAGE_BYTES = 2 * 1024 * 1024;

/** Checks an image URL for `field` (e.g. `body.imageUrl`); throws INVALID_INPUT saying why. */
export async function checkImageUrl(urlGuard: UrlGuard, url: string, opts: { field: string; types: readonly string[] }): Promise<void> {
  const name = opts.field.replace(/^body\./, '');
  const fail = (why: string) => new AppError('INVALID_INPUT', `${name}: ${why}`, { fields: { [opts.field]: why } });
  let res;
  try {
    res = await urlGuard.fetch(url, { method: 'GET', timeoutMs: 5_000, maxBytes: MAX_IMAGE_BYTES });
  } catch (err) {
    if (err instanceof UnsafeUrlError) throw fail(err.message);
    throw err;
  }
  if (res.status !== 200) throw fail(`the URL answered HTTP ${res.status}`);
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!opts.types.includes(type)) throw fail(`must be an image (${opts.types.map((t) => t.replace('image/', '').replace('+xml', '').toUpperCase()).join(', ')}; got ${type || 'no content type'})`);
}
