/** Where a merchant's checkout pages are served: https://{slug}.{service domain} in production; http with the API port in local runs. */
export function checkoutOrigin(slug: string, where: { production: boolean; serviceDomain: string; port: number }): string {
  return where.production ? `https://${slug}.${where.serviceDomain}` : `http://${slug}.${where.serviceDomain}:${where.port}`;
}
