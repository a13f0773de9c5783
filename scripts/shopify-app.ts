// The merchant's own Shopify app, from the command line (docs/storefront-a.md, "The app's configuration"):
//   npm run shopify:app-config -- --client-id <id> --url <PUBLIC_API_URL> [--app-url URL] [--out FILE]
//     prints (or writes) shopify.app.toml for that app, generated from the service's scopes, callback and webhooks;
//     without options it writes the committed template store-extensions/storefront-a-app/shopify.app.toml.
//   npm run shopify:deploy -- --client-id <id> --url <PUBLIC_API_URL> [--out DIR] [--dry-run]
//     lays the app project out (configuration + our theme app extension) in DIR (default: a temporary folder) and runs
//     `npx @shopify/cli@<pinned> app deploy --allow-updates` there. Non-interactive with SHOPIFY_APP_AUTOMATION_TOKEN set
//     (an App Automation Token of that app, from the Dev Dashboard); else Shopify CLI asks to log in.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { APP_TEMPLATE_PATH, appConfigTemplate, appConfigToml, appProjectFiles, SHOPIFY_CLI_VERSION } from '../api/storefront-a-app.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'client-id': { type: 'string' }, url: { type: 'string' }, 'app-url': { type: 'string' }, out: { type: 'string' }, 'dry-run': { type: 'boolean' } },
});
const command = positionals[0];
const fail = (message: string): never => {
  console.error(message);
  process.exit(2);
};
function inputs() {
  const clientId = values['client-id'] ?? fail('--client-id <your app\'s client id> is required');
  const url = values.url ?? fail('--url <this service\'s PUBLIC_API_URL, https://…> is required');
  if (!/^https:\/\//.test(url)) fail('--url must be the https address Shopify reaches this service at');
  return { clientId, apiUrl: url, appUrl: values['app-url'] };
}

if (command === 'config') {
  if (!values['client-id'] && !values.url) {
    writeFileSync(APP_TEMPLATE_PATH, appConfigTemplate());
    console.log(`wrote ${path.relative(process.cwd(), APP_TEMPLATE_PATH)}`);
  } else if (values.out) {
    writeFileSync(values.out, appConfigToml(inputs()));
    console.log(`wrote ${values.out}`);
  } else process.stdout.write(appConfigToml(inputs()));
} else if (command === 'deploy') {
  const input = inputs();
  const dir = values.out ?? mkdtempSync(path.join(tmpdir(), 'shopify-app-'));
  for (const [file, content] of Object.entries(appProjectFiles(input))) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  const args = ['--yes', `@shopify/cli@${SHOPIFY_CLI_VERSION}`, 'app', 'deploy', '--path', dir, '--client-id', input.clientId, '--allow-updates'];
  console.log(`app project in ${dir}\n$ npx ${args.join(' ')}`);
  if (!process.env.SHOPIFY_APP_AUTOMATION_TOKEN) console.log('(SHOPIFY_APP_AUTOMATION_TOKEN is not set: Shopify CLI will ask you to log in)');
  if (!values['dry-run']) process.exit(spawnSync('npx', args, { stdio: 'inherit' }).status ?? 1);
} else {
  fail('usage: tsx scripts/shopify-app.ts config|deploy [--client-id ID --url https://…] [--app-url URL] [--out PATH] [--dry-run]');
}
