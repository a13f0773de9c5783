import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TemplateSyntaxError, renderTemplate } from './mustache.js';

describe('the template renderer', () => {
  it.each([
    ['a value, escaped', 'Hi {{name}}', { name: '<b>&"\'' }, 'Hi &lt;b&gt;&amp;&quot;&#39;'],
    ['a raw value', '{{{html}}}|{{& html}}', { html: '<i>x</i>' }, '<i>x</i>|<i>x</i>'],
    ['a nested name', '{{order.total.amount}}', { order: { total: { amount: 12.5 } } }, '12.5'],
    ['a missing name', '[{{nope}}][{{a.b}}]', { a: 1 }, '[][]'],
    ['a section over an array', '{{#items}}[{{name}}]{{/items}}', { items: [{ name: 'a&b' }, { name: 'c' }] }, '[a&amp;b][c]'],
    ['each with the current item', '{{#each tags}}{{.}},{{/each}}', { tags: ['x', 'y'] }, 'x,y,'],
    ['a section into an object, reaching outer names', '{{#shop}}{{name}} for {{customer}}{{/shop}}', { customer: 'Jane', shop: { name: 'Teas' } }, 'Teas for Jane'],
    ['a falsy section and an inverted one', '{{#paid}}paid{{/paid}}{{^paid}}unpaid{{/paid}}{{^items}}none{{/items}}', { paid: false, items: [] }, 'unpaidnone'],
    ['a comment', 'a{{! ignored }}b', {}, 'ab'],
  ])('renders %s', (_name, source, model, expected) => {
    expect(renderTemplate(source, model)).toBe(expected);
  });

  it.each(['{{#a}}x', '{{#a}}x{{/b}}', '{{/a}}', 'x {{name', '{{}}'])('refuses the malformed template %s', (source) => {
    expect(() => renderTemplate(source, {})).toThrow(TemplateSyntaxError);
  });

  it('never lets a {{value}} inject markup', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        expect(renderTemplate('{{v}}', { v: value })).not.toMatch(/[<>"']/);
      }),
    );
  });
});
