// The checkout API's refusals in the shopper's language: every dictionary has every template English has, with the
// same {values}; a refusal made from a template comes back in the language with its country and status named there;
// the refusals the domain itself writes (discount verdicts, unstorable text, shipping destinations) are all covered;
// anything else stays as it was.
import { describe, expect, it } from 'vitest';
import { expectTranslated } from '../../../test/harness/translations.js';
import { DISCOUNT_MESSAGES } from '../discounts.js';
import { addressProblemMessage } from '../../address-rules.js';
import { destinationProblem } from '../../shipping.js';
import { TEXT_PROBLEM_MESSAGES } from '../../text.js';
import { EN, SHOPPER_ERRORS, translateShopperError, translateShopperMessage } from './index.js';

const SAME_AS_ENGLISH: Record<string, string[]> = { de: [], fr: [], es: [], it: [], nl: ['statusOpen'] };
const others = (Object.keys(SHOPPER_ERRORS) as Array<keyof typeof SHOPPER_ERRORS>).filter((l) => l !== 'en');

describe('the refusals\' dictionaries', () => {
  it.each(others)('given %s / every template of English, no other, each with the same {values}, and translated', (language) => {
    expectTranslated(language, SHOPPER_ERRORS[language], EN, SAME_AS_ENGLISH[language]!);
  });
});

describe('a refusal in the shopper\'s language', () => {
  it.each([
    ['de', 'enter the city', 'Geben Sie den Ort ein'],
    ['fr', 'This discount code has expired', 'Ce code de réduction a expiré'],
    ['de', 'this shop does not ship to Germany (DE)', 'Dieser Shop liefert nicht nach Deutschland'],
    ['fr', 'Express does not ship to Switzerland (CH): choose another shipping method', 'Express ne livre pas vers Suisse : choisissez un autre mode de livraison'],
    ['es', 'This checkout is payment pending: its total is final', 'Este pedido está pendiente de pago: su total es definitivo'],
    ['it', 'at most 120 characters', 'Al massimo 120 caratteri'],
    ['nl', 'no shipping rate "abc" for this checkout', 'De verzendmethode ‘abc’ bestaat niet voor deze bestelling'],
    ['de', 'enter the ZIP code in the format used in US, e.g. 95014 or 22162-1010', 'Geben Sie den ZIP-Code im Format von Vereinigte Staaten ein, z. B. 95014 oder 22162-1010'],
    ['fr', 'choose the state: addresses in US need one', 'Choisissez l’État : les adresses de ce pays (États-Unis) en ont besoin'],
  ] as const)('given %s and "%s" / "%s"', (language, english, said) => {
    expect(translateShopperError(english, language)).toBe(said);
  });

  it('given an INVALID_INPUT message of several fields / each field\'s message translated, the field paths kept', () => {
    expect(translateShopperMessage('address.city: enter the city; email: enter a valid email address', 'de')).toBe('address.city: Geben Sie den Ort ein; email: Geben Sie eine gültige E-Mail-Adresse ein');
  });

  it('given a rate named like a dictionary word / its name stays as the merchant wrote it', () => {
    expect(translateShopperError('open does not ship to Japan (JP): choose another shipping method', 'de')).toBe('open liefert nicht nach Japan: Wählen Sie eine andere Versandart');
  });

  it('given English, or a text no template makes / it stays as it was', () => {
    expect(translateShopperError('enter the city', 'en')).toBe('enter the city');
    expect(translateShopperError('Something only a merchant would read', 'de')).toBe('Something only a merchant would read');
    expect(translateShopperMessage('body: Something else', 'fr')).toBe('body: Something else');
  });

  it('given every refusal the domain writes / each has a template, in every language', () => {
    const written = [
      ...Object.values(DISCOUNT_MESSAGES),
      ...Object.values(TEXT_PROBLEM_MESSAGES),
      ...(['postal', 'zip', 'eircode', 'pin'] as const).map((postalKind) => addressProblemMessage('AT', { kind: 'postal-format', postalKind, examples: ['1010', '3741'] })),
      ...(['state', 'province', 'county', 'region', 'other'] as const).flatMap((regionKind) => [
        addressProblemMessage('US', { kind: 'region-missing', regionKind }),
        addressProblemMessage('US', { kind: 'region-unknown', regionKind, examples: ['CA', 'NY'] }),
      ]),
      destinationProblem([{ id: 'r1', name: 'Express', countries: ['FR'] }], null, 'JP', 'r1')!.message,
      destinationProblem([{ id: 'r1', name: 'Express', countries: ['FR'] }, { id: 'r2', name: 'World', countries: null }], null, 'JP', 'r1')!.message,
    ];
    for (const language of others) for (const text of written) expect(translateShopperError(text, language), `${language}: ${text}`).not.toBe(text);
  });
});
