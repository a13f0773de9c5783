/**
 * Where a merchant's checkout pages are served: its verified custom domain (checkout.<domain>) when it has one,
 * else {slug}.{service domain}. Production: https on the standard port. Elsewhere: http on the API port (`npm start`:
 * the API serves every host), or https on that port when a TLS edge is in front (`https`: PUBLIC_HTTPS, the cluster).
 */
export function checkoutOrigin(slug: string, where: { production: boolean; https?: boolean; serviceDomain: string; port: number }, customHostname?: string | null): string {
  const host = customHostname ?? `${slug}.${where.serviceDomain}`;
  if (where.production) return `https://${host}`;
  if (where.https) return where.port === 443 ? `https://${host}` : `https://${host}:${where.port}`;
  return `http://${host}:${where.port}`;
}
