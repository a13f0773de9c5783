/**
 * Where a merchant's checkout pages are served: its verified custom domain (checkout.<domain>) when it has one,
 * else https://{slug}.{service domain}. Local runs keep http and the API port, as the API serves every host.
 */
export function checkoutOrigin(slug: string, where: { production: boolean; serviceDomain: string; port: number }, customHostname?: string | null): string {
  const host = customHostname ?? `${slug}.${where.serviceDomain}`;
  return where.production ? `https://${host}` : `http://${host}:${where.port}`;
}
