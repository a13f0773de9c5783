// The subset of Mustachio (Postmark's template language) that transactional emails use:
//   {{name}} {{a.b.c}}   value, HTML-escaped        {{{name}}} {{& name}}   value, raw
//   {{#name}}..{{/name}}  section: skipped when falsy or empty, repeated per array item, scoped into objects
//   {{#each list}}..{{/each}}  same as a section over an array     {{^name}}..{{/name}}  inverted section
//   {{.}} / {{this}}      the current item               {{! comment }}
// A name is looked up from the innermost scope outwards, as Mustache does.
import { escapeHtml } from './html.js';

type Node = string | { kind: 'value'; name: string; raw: boolean } | { kind: 'section'; name: string; inverted: boolean; children: Node[] };

export class TemplateSyntaxError extends Error {
  override name = 'TemplateSyntaxError';
}

export function parseTemplate(source: string): Node[] {
  const root: Node[] = [];
  const open: Array<{ name: string; closeAs: string; children: Node[] }> = [];
  const current = () => open.at(-1)?.children ?? root;
  let pos = 0;
  while (pos < source.length) {
    const start = source.indexOf('{{', pos);
    if (start === -1) {
      current().push(source.slice(pos));
      break;
    }
    if (start > pos) current().push(source.slice(pos, start));
    const triple = source.startsWith('{{{', start);
    const closer = triple ? '}}}' : '}}';
    const end = source.indexOf(closer, start + closer.length);
    if (end === -1) throw new TemplateSyntaxError(`unclosed tag at offset ${start}`);
    const inner = source.slice(start + closer.length, end).trim();
    pos = end + closer.length;
    if (triple) {
      current().push({ kind: 'value', name: inner, raw: true });
      continue;
    }
    const sigil = inner[0] ?? '';
    const name = '#^/&!'.includes(sigil) ? inner.slice(1).trim() : inner;
    if (sigil === '!') continue;
    if (!name) throw new TemplateSyntaxError(`empty tag at offset ${start}`);
    if (sigil === '#' || sigil === '^') {
      const each = sigil === '#' && /^each\s+/.test(name);
      const section = { kind: 'section' as const, name: each ? name.replace(/^each\s+/, '') : name, inverted: sigil === '^', children: [] as Node[] };
      current().push(section);
      open.push({ name: section.name, closeAs: each ? 'each' : section.name, children: section.children });
    } else if (sigil === '/') {
      const top = open.pop();
      if (!top || top.closeAs !== name) throw new TemplateSyntaxError(`unexpected {{/${name}}} at offset ${start}`);
    } else {
      current().push({ kind: 'value', name, raw: sigil === '&' });
    }
  }
  const unclosed = open.at(-1);
  if (unclosed) throw new TemplateSyntaxError(`section {{#${unclosed.name}}} is never closed`);
  return root;
}

function lookup(scopes: unknown[], name: string): unknown {
  if (name === '.' || name === 'this') return scopes.at(-1);
  const [head = '', ...rest] = name.split('.');
  for (let i = scopes.length - 1; i >= 0; i--) {
    const scope = scopes[i];
    if (scope !== null && typeof scope === 'object' && head in scope) {
      return rest.reduce<unknown>((v, key) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), (scope as Record<string, unknown>)[head]);
    }
  }
  return undefined;
}

function renderNodes(nodes: Node[], scopes: unknown[]): string {
  let out = '';
  for (const node of nodes) {
    if (typeof node === 'string') {
      out += node;
    } else if (node.kind === 'value') {
      const v = lookup(scopes, node.name);
      const text = v === undefined || v === null || typeof v === 'object' ? '' : String(v);
      out += node.raw ? text : escapeHtml(text);
    } else {
      const v = lookup(scopes, node.name);
      const empty = !v || (Array.isArray(v) && v.length === 0);
      if (node.inverted) {
        if (empty) out += renderNodes(node.children, scopes);
      } else if (!empty) {
        const items = Array.isArray(v) ? v : [v];
        for (const item of items) out += renderNodes(node.children, [...scopes, item]);
      }
    }
  }
  return out;
}

export function renderTemplate(source: string, model: unknown): string {
  return renderNodes(parseTemplate(source), [model]);
}
