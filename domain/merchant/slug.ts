// Checkout subdomain slugs: {slug}.{service_domain}. Lowercase letters, digits and single hyphens,
// 3–40 characters, starting and ending alphanumeric, and none of the names the service keeps for itself.

export const SLUG_MIN = 3;
export const SLUG_MAX = 40;

export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'www', 'api', 'app', 'admin', 'dashboard', 'checkout', 'checkouts', 'mail', 'email', 'smtp', 'imap', 'pop',
  'ftp', 'ns', 'ns1', 'ns2', 'dns', 'cdn', 'static', 'assets', 'img', 'images', 'media', 'docs', 'help',
  'support', 'status', 'blog', 'billing', 'pay', 'payment', 'payments', 'webhook', 'webhooks', 'auth', 'login',
  'signup', 'register', 'account', 'accounts', 'secure', 'security', 'preview', 'sandbox', 'test', 'dev',
  'staging', 'prod', 'internal', 'localhost', 'root', 'system', 'temporal',
]);

const PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Why a slug is refused, or undefined when it is valid. */
export function slugProblem(slug: string): string | undefined {
  if (slug.length < SLUG_MIN || slug.length > SLUG_MAX) return `A slug has ${SLUG_MIN} to ${SLUG_MAX} characters`;
  if (!PATTERN.test(slug)) return 'A slug has only lowercase letters, digits and single hyphens, and starts and ends with a letter or digit';
  if (RESERVED_SLUGS.has(slug)) return `"${slug}" is reserved`;
  return undefined;
}

/** A valid slug derived from a shop name ("Café Zoë's Shoes!" → "cafe-zoes-shoes"), or undefined if none can be. */
export function slugFromName(name: string): string | undefined {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX - 5)
    .replace(/-+$/, '');
  if (!base) return undefined;
  const candidate = base.length < SLUG_MIN ? `${base}-shop` : base;
  return slugProblem(candidate) ? `${candidate}-shop` : candidate;
}

/** The candidate with a short suffix, for when the plain one is taken: "shoes" + "k3x9" → "shoes-k3x9". */
export function withSuffix(slug: string, suffix: string): string {
  return `${slug.slice(0, SLUG_MAX - suffix.length - 1).replace(/-+$/, '')}-${suffix}`;
}
