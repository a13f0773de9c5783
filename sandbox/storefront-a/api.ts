// The Admin REST API an installed app calls with its access token, under
// /shops/<shop>/admin/api/<version>/...: shop, carts, script tags and orders.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ACCESS_TOKEN_HEADER } from '../../integrations/storefront-a/client.js';
import { baseUrlOf, intOf, PlatformError, stripJson, type PublicUrl } from '../storefront-common/web.js';
import { createOrder, serializeOrder, splitTags } from './orders.js';
import { hasScope, requireShop, serializeCart, shopJson, type ScriptTagRecord, type SimShop, type State, type TokenGrant } from './state.js';

type ApiRequest = FastifyRequest<{ Params: { shop: string; version: string; id?: string }; Querystring: Record<string, string | undefined> }>;

const API_VERSION = /^20\d\d-(01|04|07|10)$/;

/** Shop, version and token checks every Admin API call passes, then the scope the call needs. */
function authorize(state: State, request: ApiRequest, scope?: string): { shop: SimShop; grant: TokenGrant } {
  const { shop: host, version } = request.params;
  const shop = requireShop(state, host, 'json');
  if (!API_VERSION.test(version)) throw new PlatformError(404, { errors: 'Not Found' });
  const token = request.headers[ACCESS_TOKEN_HEADER.toLowerCase()];
  const grant = typeof token === 'string' ? state.tokens.get(token) : undefined;
  if (!grant || grant.shop !== shop.host) {
    throw new PlatformError(401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
  }
  if (scope && !hasScope(grant.scopes, scope)) throw new PlatformError(403, { errors: `[API] This action requires merchant approval for ${scope} scope.` });
  return { shop, grant };
}

const scriptTagJson = (t: ScriptTagRecord) => ({
  id: t.id,
  src: t.src,
  event: t.event,
  display_scope: t.displayScope,
  cache: false,
  created_at: t.createdAt,
  updated_at: t.updatedAt,
});

const scriptTagBody = z.object({
  script_tag: z.object({
    event: z.literal('onload', 'is not included in the list'),
    src: z.string().refine((src) => {
      try {
        const url = new URL(src);
        // The platform serves script tags only over https; the sandbox also accepts local http servers.
        return url.protocol === 'https:' || (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname));
      } catch {
        return false;
      }
    }, 'is invalid'),
    display_scope: z.enum(['online_store', 'order_status', 'all']).default('online_store'),
  }),
});

export function registerAdminApi(app: FastifyInstance, state: State, publicUrl: PublicUrl): void {
  const prefix = '/shops/:shop/admin/api/:version';

  const ownScriptTag = (shop: SimShop, grant: TokenGrant, id: string | undefined) => {
    const tag = shop.scriptTags.get(intOf(stripJson(id ?? '')) ?? -1);
    if (!tag || tag.clientId !== grant.clientId) throw new PlatformError(404, { errors: 'Not Found' });
    return tag;
  };

  app.get(`${prefix}/shop.json`, async (request: ApiRequest) => ({ shop: shopJson(authorize(state, request).shop) }));

  app.get(`${prefix}/carts/:id`, async (request: ApiRequest) => {
    const { shop } = authorize(state, request, 'read_checkouts');
    const token = stripJson(request.params.id ?? '');
    if (!shop.carts.get(token)) throw new PlatformError(404, { errors: 'Not Found' });
    return { cart: serializeCart(baseUrlOf(publicUrl, request), shop, token) };
  });

  app.get(`${prefix}/script_tags.json`, async (request: ApiRequest) => {
    const { shop, grant } = authorize(state, request, 'read_script_tags');
    const src = request.query.src;
    const tags = [...shop.scriptTags.values()].filter((t) => t.clientId === grant.clientId && (src === undefined || t.src === src));
    return { script_tags: tags.map(scriptTagJson) };
  });

  app.post(`${prefix}/script_tags.json`, async (request: ApiRequest, reply) => {
    const { shop, grant } = authorize(state, request, 'write_script_tags');
    const parsed = scriptTagBody.safeParse(request.body);
    if (!parsed.success) {
      const errors: Record<string, string[]> = {};
      for (const issue of parsed.error.issues) (errors[String(issue.path.at(-1) ?? 'script_tag')] ??= []).push(issue.message);
      throw new PlatformError(422, { errors });
    }
    const now = new Date().toISOString();
    const tag: ScriptTagRecord = { id: state.nextId(), clientId: grant.clientId, src: parsed.data.script_tag.src, event: 'onload', displayScope: parsed.data.script_tag.display_scope, createdAt: now, updatedAt: now };
    shop.scriptTags.set(tag.id, tag);
    return reply.code(201).send({ script_tag: scriptTagJson(tag) });
  });

  app.get(`${prefix}/script_tags/:id`, async (request: ApiRequest) => {
    const { shop, grant } = authorize(state, request, 'read_script_tags');
    return { script_tag: scriptTagJson(ownScriptTag(shop, grant, request.params.id)) };
  });

  app.delete(`${prefix}/script_tags/:id`, async (request: ApiRequest) => {
    const { shop, grant } = authorize(state, request, 'write_script_tags');
    shop.scriptTags.delete(ownScriptTag(shop, grant, request.params.id).id);
    return {};
  });

  app.post(`${prefix}/orders.json`, async (request: ApiRequest, reply) => {
    const { shop, grant } = authorize(state, request, 'write_orders');
    const key = request.headers['idempotency-key'];
    const earlier = typeof key === 'string' ? shop.orders.get(shop.idempotency.get(key) ?? -1) : undefined;
    if (earlier) return reply.code(200).header('idempotent-replayed', 'true').send({ order: serializeOrder(shop, earlier) });
    const order = createOrder(state, shop, grant.clientId, request.body);
    if (typeof key === 'string') shop.idempotency.set(key, order.id);
    return reply.code(201).send({ order: serializeOrder(shop, order) });
  });

  app.get(`${prefix}/orders.json`, async (request: ApiRequest) => {
    const { shop } = authorize(state, request, 'read_orders');
    const q = request.query;
    const limit = intOf(q.limit ?? '50');
    if (limit === null || limit < 1 || limit > 250) throw new PlatformError(400, { errors: { limit: 'must be between 1 and 250' } });
    const status = q.status ?? 'open';
    if (!['open', 'closed', 'cancelled', 'any'].includes(status)) throw new PlatformError(400, { errors: { status: 'is not included in the list' } });
    const tag = q.tag?.toLowerCase();
    const sinceId = intOf(q.since_id ?? '0') ?? 0;
    // Orders here are never closed or cancelled, so those filters simply match nothing.
    const orders = [...shop.orders.values()]
      .filter((o) => (status === 'open' || status === 'any') && o.id > sinceId)
      .filter((o) => !q.financial_status || q.financial_status === 'any' || o.financialStatus === q.financial_status)
      .filter((o) => !q.email || o.email?.toLowerCase() === q.email.toLowerCase())
      .filter((o) => !tag || splitTags(o.tags).some((t) => t.toLowerCase() === tag))
      .sort((a, b) => b.id - a.id)
      .slice(0, limit);
    return { orders: orders.map((o) => serializeOrder(shop, o)) };
  });

  app.get(`${prefix}/orders/:id`, async (request: ApiRequest) => {
    const { shop } = authorize(state, request, 'read_orders');
    const order = shop.orders.get(intOf(stripJson(request.params.id ?? '')) ?? -1);
    if (!order) throw new PlatformError(404, { errors: 'Not Found' });
    return { order: serializeOrder(shop, order) };
  });
}
