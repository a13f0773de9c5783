// Contract: every GraphQL document the service sends to Shopify is valid against Shopify's real schemas — the Admin
// or Storefront API, at the version we pin and at the next one (unstable until released) — and uses no field,
// argument, input field or enum value Shopify marks deprecated there (graphql-js `validate` with its specified rules
// and NoDeprecatedCustomRule). The schemas are Shopify's own (scripts/lib/shopify-schemas.ts: @shopify/dev-mcp,
// provisioned by `npm test`'s pretest); the documents are read from our source (storefront-a-documents.ts), so a new
// one is checked without anyone listing it. The simulator answers from its own reading of the docs: this is the
// check that does not depend on it.
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildClientSchema, coerceInputValue, isEnumType, isInputObjectType, isInterfaceType, isObjectType, NoDeprecatedCustomRule, parse, specifiedRules, validate, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { toDraftOrderInput } from '../../integrations/storefront-a/client.js';
import { describe, expect, it } from 'vitest';
import { SHOPIFY_SCHEMA_PACKAGE, SHOPIFY_SCHEMA_VERSIONS, shopifySchemaPath, type ShopifyApi } from '../../scripts/lib/shopify-schemas.js';
import { adminSchema, storefrontSchema } from '../../sandbox/storefront-a/graphql.js';
import { scanRepository, scanSource, type FoundDocument } from './storefront-a-documents.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RULES = [...specifiedRules, NoDeprecatedCustomRule];

const schemas = new Map<string, GraphQLSchema>();
function schema(api: ShopifyApi, version: string): GraphQLSchema {
  const key = `${api} ${version}`;
  let built = schemas.get(key);
  if (!built) {
    const file = shopifySchemaPath(api, version);
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm run provision (it fetches ${SHOPIFY_SCHEMA_PACKAGE.name}@${SHOPIFY_SCHEMA_PACKAGE.version})`);
    built = buildClientSchema((JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as { data: IntrospectionQuery }).data);
    schemas.set(key, built);
  }
  return built;
}

/** Each problem graphql-js finds, with where it is in the document. */
const problemsOf = (doc: Pick<FoundDocument, 'api' | 'text'>, version: string) =>
  validate(schema(doc.api, version), parse(doc.text), RULES).map((e) => `${e.message}${e.locations?.length ? ` (at ${doc.text.slice(Math.max(0, (e.nodes?.[0]?.loc?.start ?? 0) - 20), (e.nodes?.[0]?.loc?.start ?? 0) + 40)})` : ''}`);

/**
 * Deprecated uses we still make, each with why; any other deprecated use fails. The list cannot go stale: a test below
 * fails when an entry no longer matches anything we send.
 */
const KNOWN_DEPRECATED: Array<{ match: string; why: string }> = [];
const known = (problem: string) => KNOWN_DEPRECATED.some((k) => problem.startsWith(k.match));

const scan = scanRepository(ROOT);
const operationName = (text: string) => /^\s*(?:query|mutation|subscription)\s+(\w+)/.exec(text)?.[1] ?? '(anonymous)';

describe('the GraphQL documents we send to Shopify', () => {
  it('given the service\'s source / every document is found, evaluated and attributed to the Admin or Storefront API', () => {
    expect(scan.problems).toEqual([]);
    // Both APIs are reached (the scan works, not merely finds nothing).
    expect(scan.documents.filter((d) => d.api === 'admin').length).toBeGreaterThanOrEqual(15);
    expect(scan.documents.filter((d) => d.api === 'storefront').length).toBeGreaterThanOrEqual(3);
  });

  for (const version of SHOPIFY_SCHEMA_VERSIONS) {
    it.each(scan.documents.map((d) => [`${d.api} ${operationName(d.text)} (${d.where})`, d] as const))(`given Shopify's ${version} schema / %s is valid and uses nothing deprecated`, (_name, doc) => {
      expect(problemsOf(doc, version).filter((p) => !known(p))).toEqual([]);
    });
    it(`given Shopify's ${version} schema / each deprecated use we allow is still made (else drop it from the list)`, () => {
      const made = scan.documents.flatMap((d) => problemsOf(d, version));
      for (const k of KNOWN_DEPRECATED) expect(made.some((p) => p.startsWith(k.match)), k.match).toBe(true);
    });
  }
});

describe('the check itself', () => {
  it('given a document using an argument Shopify deprecated in 2026-10 / it names it', () => {
    const doc = { api: 'admin' as const, text: 'mutation Complete($id: ID!, $pending: Boolean) { draftOrderComplete(id: $id, paymentPending: $pending) { draftOrder { id } } }' };
    expect(problemsOf(doc, '2026-10')).toEqual([expect.stringContaining('argument "paymentPending" is deprecated')]);
  });

  it('given a field the schema does not have / it is refused', () => {
    expect(problemsOf({ api: 'storefront', text: 'query Cart($id: ID!) { cart(id: $id) { id totalPrice } }' }, SHOPIFY_SCHEMA_VERSIONS[0])).toEqual([expect.stringContaining('Cannot query field "totalPrice" on type "Cart"')]);
  });

  it('given source with a const document passed to adminCall, one sent some other way, one with a local variable and one with an ambiguous const / the first is found whole, the others are problems', () => {
    const found = scanSource(
      'x.ts',
      [
        'const FIELDS = `id name`;',
        'const DUP = `id`;',
        'const Q = `query A { shop { ${FIELDS} } }`;',
        'async function f(adminCall: Function, fetchIt: Function, more: string) {',
        '  await adminCall("a", Q);',
        '  await fetchIt("query B { shop { id } }");',
        '  await adminCall("c", `query C { shop { ${more} } }`);',
        '  const DUP = `name`;',
        '  await adminCall("d", `query D { shop { ${DUP} } }`);',
        '}',
      ].join('\n'),
    );
    expect(found.documents).toEqual([{ where: 'x.ts:3', api: 'admin', text: 'query A { shop { id name } }' }]);
    expect(found.problems).toEqual([expect.stringMatching(/^x\.ts:6: .*passed to fetchIt/), expect.stringMatching(/^x\.ts:7: .*cannot evaluate/), expect.stringMatching(/^x\.ts:9: .*cannot evaluate/)]);
  });
});

/**
 * What the simulator's hand-written schema (sandbox/storefront-a/graphql.ts) declares that Shopify's does not, or
 * declares otherwise: types, fields and their types, arguments and their types, input fields, enum values.
 */
/** Declared otherwise on purpose, and why. */
const KNOWN_DRIFT = new Map([['CurrencyCode', 'a scalar in the simulator: test shops use any ISO 4217 currency Intl knows; Shopify\'s enum lists 162']]);

function driftFrom(real: GraphQLSchema, sim: GraphQLSchema): string[] {
  const drift: string[] = [];
  // The roots by role: Shopify names its query root QueryRoot, the simulator Query.
  const roots = new Map([sim.getQueryType(), sim.getMutationType()].map((t, i) => [t?.name, [real.getQueryType(), real.getMutationType()][i]?.name]));
  for (const simType of Object.values(sim.getTypeMap())) {
    if (simType.name.startsWith('__') || KNOWN_DRIFT.has(simType.name)) continue;
    const realType = real.getType(roots.get(simType.name) ?? simType.name);
    if (!realType) {
      drift.push(`type ${simType.name}: not in Shopify's schema`);
      continue;
    }
    if (realType.constructor !== simType.constructor) drift.push(`type ${simType.name}: ${simType.constructor.name} here, ${realType.constructor.name} at Shopify`);
    if (isEnumType(simType) && isEnumType(realType)) {
      for (const v of simType.getValues()) if (!realType.getValue(v.name)) drift.push(`enum ${simType.name}.${v.name}: not at Shopify`);
    }
    if ((isObjectType(simType) || isInterfaceType(simType) || isInputObjectType(simType)) && (isObjectType(realType) || isInterfaceType(realType) || isInputObjectType(realType))) {
      const realFields = realType.getFields() as Record<string, { type: unknown; args?: ReadonlyArray<{ name: string; type: unknown }> }>;
      for (const [name, field] of Object.entries(simType.getFields() as Record<string, { type: unknown; args?: ReadonlyArray<{ name: string; type: unknown }> }>)) {
        const realField = realFields[name];
        if (!realField) {
          drift.push(`${simType.name}.${name}: not at Shopify`);
          continue;
        }
        if (String(field.type) !== String(realField.type)) drift.push(`${simType.name}.${name}: ${String(field.type)} here, ${String(realField.type)} at Shopify`);
        for (const arg of field.args ?? []) {
          const realArg = realField.args?.find((a) => a.name === arg.name);
          if (!realArg) drift.push(`${simType.name}.${name}(${arg.name}:): not at Shopify`);
          else if (String(arg.type) !== String(realArg.type)) drift.push(`${simType.name}.${name}(${arg.name}:): ${String(arg.type)} here, ${String(realArg.type)} at Shopify`);
        }
      }
    }
  }
  return drift;
}

describe('the simulator\'s schema', () => {
  it.each([
    ['admin', adminSchema],
    ['storefront', storefrontSchema],
  ] as const)(`given Shopify's ${SHOPIFY_SCHEMA_VERSIONS[0]} %s schema / every type, field, argument and enum value the simulator declares is Shopify's, with Shopify's types`, (api, sim) => {
    expect(driftFrom(schema(api, SHOPIFY_SCHEMA_VERSIONS[0]), sim)).toEqual([]);
  });
});

describe('the draft order input we send', () => {
  // The documents above declare `$input: DraftOrderInput!`; what goes in it is checked here, field by field, against
  // Shopify's own input type (graphql-js coerceInputValue: unknown fields, wrong types and missing required ones are
  // errors): the shipping and billing addresses as MailingAddressInput (provinceCode, zip, countryCode), apart.
  it.each(SHOPIFY_SCHEMA_VERSIONS)('given Shopify\'s %s schema / an order billed to New York and shipped to Berlin is a valid DraftOrderInput', (version) => {
    const input = toDraftOrderInput({
      sessionToken: 'cs_contract', currency: 'EUR', email: 'jana@example.com',
      shippingAddress: { firstName: 'Jana', lastName: 'Schmidt', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', countryCode: 'DE' },
      billingAddress: { firstName: 'Jana', lastName: 'Schmidt', line1: '350 5th Ave', line2: 'Floor 3', city: 'New York', postalCode: '10118', region: 'NY', countryCode: 'US', phone: '+1 212 555 0100' },
      lines: [{ title: 'Tote', quantity: 1, unitPriceMinor: 2490, productId: '1', variantId: '2' }],
      shipping: { title: 'Standard', priceMinor: 490 },
      totals: { subtotalMinor: 2490, shippingMinor: 490, discountMinor: 0, totalMinor: 2980 },
      payment: { method: 'card', reference: 'pay_1' },
    });
    const type = schema('admin', version).getType('DraftOrderInput');
    if (!isInputObjectType(type)) throw new Error('DraftOrderInput is no input type');
    const problems: string[] = [];
    coerceInputValue(input, type, (path, _value, error) => problems.push(`${path.join('.')}: ${error.message}`));
    expect(problems).toEqual([]);
    expect(input.billingAddress).toMatchObject({ address1: '350 5th Ave', zip: '10118', provinceCode: 'NY', countryCode: 'US' });
    expect(input.shippingAddress).toMatchObject({ address1: 'Hauptstr. 1', zip: '10115', countryCode: 'DE' });
  });
});
