// The benchmarks' slice order: a target measured more often first (or last) than another would carry the
// machine's drift into the ratio they print.
import { describe, expect, it } from 'vitest';
import { sliceOrder } from './load.js';

describe('sliceOrder', () => {
  it('given two targets / keeps the A B, B A order the two-target benchmarks always used', () => {
    expect([0, 1, 2, 3].map((s) => sliceOrder(2, s))).toEqual([[0, 1], [1, 0], [1, 0], [0, 1]]);
  });

  it.each([2, 3, 4, 5])('given %i targets and 2n slices / every round runs each target once, and each target runs in each position equally often', (n) => {
    const counts = Array.from({ length: n }, () => Array<number>(n).fill(0));
    for (let s = 0; s < 4 * n; s++) {
      const order = sliceOrder(n, s);
      expect([...order].sort()).toEqual(Array.from({ length: n }, (_, i) => i));
      order.forEach((target, position) => counts[target]![position]!++);
    }
    for (const row of counts) expect(row).toEqual(Array(n).fill(4));
  });
});
