// Every GraphQL document the service sends to Shopify, read from the source (not from a list someone must keep up to
// date), for test/contract/storefront-a-schema.test.ts. A document is a string or template literal that starts like a
// GraphQL operation (`query Name(`, `mutation {` …); a `${CONST}` inside it is replaced by that const of the same
// file (string, template or `+` of them; the name declared once). Which API it goes to is read from where it is used: the client sends Admin API
// documents through `adminCall(what, document, …)` and Storefront API ones through `call(storefront, what, document,
// …)` (integrations/storefront-a/client.ts). Anything else — a document the reader cannot evaluate, or one used
// elsewhere or nowhere — is reported as a problem, so a new document cannot slip past the schema check.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export type Api = 'admin' | 'storefront';
export interface FoundDocument {
  /** file:line of the literal. */
  where: string;
  api: Api;
  text: string;
}
export interface Scan {
  documents: FoundDocument[];
  problems: string[];
}

const OPERATION = /^\s*(query|mutation|subscription)(\s+[_A-Za-z]\w*)?\s*[({]/;

/** The service's own source: every directory whose code runs in the API or the worker, or in our scripts. */
export const SOURCE_DIRS = ['activities', 'api', 'config', 'domain', 'integrations', 'model', 'store-extensions', 'scripts', 'security', 'worker', 'workflows'];

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (name === 'node_modules') continue;
    if (statSync(full).isDirectory()) out.push(...tsFiles(full));
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Scans the service's source under `root`. */
export function scanRepository(root: string): Scan {
  const scan: Scan = { documents: [], problems: [] };
  for (const dir of SOURCE_DIRS) {
    const base = path.join(root, dir);
    let files: string[];
    try {
      files = tsFiles(base);
    } catch {
      continue;
    }
    for (const file of files) {
      const one = scanSource(path.relative(root, file), readFileSync(file, 'utf8'));
      scan.documents.push(...one.documents);
      scan.problems.push(...one.problems);
    }
  }
  return scan;
}

/** Scans one file's text (exported so the test can show a stray document is caught). */
export function scanSource(fileName: string, text: string): Scan {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  // Every const of the file by name (at module level or inside a function such as the client's factory); a name
  // declared twice is left out, so a substitution of it cannot be evaluated and is reported.
  const consts = new Map<string, ts.Expression | null>();
  const collect = (node: ts.Node): void => {
    if (ts.isVariableDeclarationList(node) && node.flags & ts.NodeFlags.Const) {
      for (const d of node.declarations) {
        if (ts.isIdentifier(d.name) && d.initializer) consts.set(d.name.text, consts.has(d.name.text) ? null : d.initializer);
      }
    }
    ts.forEachChild(node, collect);
  };
  collect(source);

  const evaluate = (node: ts.Expression, depth = 0): string | undefined => {
    if (depth > 20) return undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) return evaluate(node.expression, depth + 1);
    if (ts.isTemplateExpression(node)) {
      let out = node.head.text;
      for (const span of node.templateSpans) {
        const part = evaluate(span.expression, depth + 1);
        if (part === undefined) return undefined;
        out += part + span.literal.text;
      }
      return out;
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const [l, r] = [evaluate(node.left, depth + 1), evaluate(node.right, depth + 1)];
      return l === undefined || r === undefined ? undefined : l + r;
    }
    if (ts.isIdentifier(node) && consts.get(node.text)) return evaluate(consts.get(node.text)!, depth + 1);
    return undefined;
  };

  /** The API a call sends its document argument to, or why it is not one we know. */
  const apiOfCall = (call: ts.CallExpression, arg: ts.Node): Api | string => {
    const callee = call.expression.getText(source);
    const index = call.arguments.indexOf(arg as ts.Expression);
    if (callee === 'adminCall' && index === 1) return 'admin';
    if (callee === 'call' && index === 2) {
      const client = call.arguments[0]?.getText(source);
      if (client === 'storefront') return 'storefront';
      if (client === 'admin') return 'admin';
    }
    return `passed to ${callee}(…) as argument ${index + 1}`;
  };

  const scan: Scan = { documents: [], problems: [] };
  const where = (node: ts.Node) => `${fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const visit = (node: ts.Node): void => {
    const literal = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node);
    // A template's parts are not documents of their own.
    if (literal && !ts.isTemplateSpan(node.parent)) {
      const head = ts.isTemplateExpression(node) ? node.head.text : node.text;
      if (OPERATION.test(head)) {
        const text = evaluate(node);
        if (text === undefined) scan.problems.push(`${where(node)}: a GraphQL document this reader cannot evaluate (only consts of the file, each declared once, may be substituted into it)`);
        else {
          // Where it is used: the literal itself as an argument, or the const it initialises wherever that is passed.
          const uses: ts.Node[] = [];
          const parent = node.parent;
          if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) {
            const name = parent.name.text;
            const find = (n: ts.Node): void => {
              if (ts.isIdentifier(n) && n.text === name && n !== parent.name) uses.push(n);
              ts.forEachChild(n, find);
            };
            find(source);
          } else uses.push(node);
          const apis = new Set<Api>();
          if (uses.length === 0) scan.problems.push(`${where(node)}: a GraphQL document that is never sent`);
          for (const use of uses) {
            const call = use.parent;
            const api = call && ts.isCallExpression(call) ? apiOfCall(call, use) : 'not passed to adminCall or call(storefront, …)';
            if (api === 'admin' || api === 'storefront') apis.add(api);
            else scan.problems.push(`${where(use)}: a GraphQL document ${api}: which Shopify API receives it?`);
          }
          for (const api of apis) scan.documents.push({ where: where(node), api, text });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return scan;
}
