// The Debian packages `npm test` needs, checked before the tests (scripts/provision.ts, the `pretest` step):
//   - chromium: the browser tests (test/browser/; playwright-core drives Debian's build, npm downloads none);
//   - nginx-light, redis-server: the cluster's chaos drill (the proxy in front of the API replicas, the shared
//     rate-limit store);
//   - docker-compose: checks docker-compose.yml (`config` needs no Docker engine);
//   - unzip: reads the plugin zip the API serves, as an independent reader would;
//   - PHP with the extensions WordPress and WooCommerce need, PHPUnit and MariaDB: the plugin's own tests and the
//     real WordPress + WooCommerce tier (test/real/), which starts its own MariaDB (the system service is not used);
//   - a JDK and Maven: fetch the Temporal time-skipping test server from Maven Central the first time.
// Each is looked for as the program it provides, so a machine that has it some other way is not asked for it.
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

export interface Requirement {
  /** The Debian package that provides it. */
  package: string;
  /** Present on this machine? */
  present: () => boolean;
}

function onPath(program: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).concat(['/usr/sbin', '/sbin'])) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, program), constants.X_OK);
      return true;
    } catch {
      // not in this one
    }
  }
  return false;
}

let phpModules: Set<string> | undefined;
function phpHas(ext: string): boolean {
  if (!phpModules) {
    try {
      phpModules = new Set(execFileSync('php', ['-m'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n').map((l) => l.trim().toLowerCase()));
    } catch {
      phpModules = new Set();
    }
  }
  return phpModules.has(ext);
}

export const REQUIREMENTS: Requirement[] = [
  { package: 'chromium', present: () => !!process.env.CHROMIUM_PATH || onPath('chromium') },
  { package: 'nginx-light', present: () => onPath('nginx') },
  { package: 'redis-server', present: () => onPath('redis-server') },
  { package: 'docker-compose', present: () => onPath('docker-compose') },
  { package: 'unzip', present: () => onPath('unzip') },
  { package: 'php-cli', present: () => onPath('php') },
  { package: 'phpunit', present: () => onPath('phpunit') },
  { package: 'php-mysql', present: () => phpHas('mysqli') },
  ...(['xml', 'mbstring', 'curl', 'zip', 'gd', 'intl'] as const).map((ext) => ({ package: `php-${ext}`, present: () => phpHas(ext) })),
  { package: 'mariadb-server', present: () => onPath('mariadbd') },
  { package: 'default-jdk-headless', present: () => onPath('java') },
  { package: 'maven', present: () => onPath('mvn') },
];

/** The packages missing here, in the order above. */
export function missingPackages(): string[] {
  phpModules = undefined;
  return REQUIREMENTS.filter((r) => !r.present()).map((r) => r.package);
}

/** The one command that installs them. */
export const installCommand = (packages: string[]) => `apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${packages.join(' ')}`;
