import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MalformedSessionError, sessionLineSchema, sessionLines } from './checkout-session.js';

const schemaLines = (items: unknown) => z.array(sessionLineSchema).parse(items);

describe('sessionLines', () => {
  const written = [
    { productId: '10', variantId: null, title: 'Linen Tote Bag', variantTitle: null, quantity: 2, unitPrice: 2490, imageUrl: 'https://shop.test/tote.svg' },
    { productId: '11', variantId: '12', title: 'Ceramic Mug', variantTitle: 'Sand', quantity: 1, unitPrice: 0, imageUrl: null },
  ];

  it('answers for the lines create writes exactly what the schema answers', () => {
    expect(sessionLines(written)).toStrictEqual(schemaLines(written));
    expect(sessionLines([])).toStrictEqual([]);
  });

  it('answers what the schema answers for lines it converts: numeric ids, absent optional fields, extra fields', () => {
    const converted = [
      { productId: 10, variantId: 12, title: 'Mug', quantity: 1, unitPrice: 100 },
      { productId: '10', title: 'Tote', quantity: 3, unitPrice: 5, imageUrl: undefined, extra: 'dropped' },
    ];
    const lines = sessionLines(converted);
    expect(lines).toStrictEqual(schemaLines(converted));
    expect(lines[0]).toStrictEqual({ productId: '10', variantId: '12', title: 'Mug', variantTitle: null, quantity: 1, unitPrice: 100, imageUrl: null });
    expect(lines[1]).not.toHaveProperty('extra');
  });

  it.each([
    ['a zero quantity', [{ ...written[0], quantity: 0 }]],
    ['a fractional price', [{ ...written[0], unitPrice: 1.5 }]],
    ['a negative price', [{ ...written[0], unitPrice: -1 }]],
    ['an empty product id', [{ ...written[0], productId: '' }]],
    ['an empty variant id', [{ ...written[0], variantId: '' }]],
    ['a missing title', [{ ...written[0], title: undefined }]],
    ['a numeric variant title', [{ ...written[0], variantTitle: 7 }]],
    ['a line that is no object', [written[0], 'line']],
    ['no list', { items: written }],
  ])('refuses what the schema refuses: %s', (_what, items) => {
    expect(() => schemaLines(items)).toThrow();
    expect(() => sessionLines(items as never)).toThrow(MalformedSessionError);
  });
});
