// Finds or makes the two Temporal servers we run locally, pinned:
//   - the Temporal CLI (dev server, `temporal server start-dev`), and
//   - the Java time-skipping test server (TestWorkflowEnvironment.createTimeSkipping).
// Order for each: a path from the environment; a cached copy; the official download (machines with
// internet); offline from the package registries (Go module proxy for the CLI, Maven Central for the test
// server). Builds go to a temp dir and are moved into the cache only when complete.
import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const TEMPORAL_CLI_VERSION = '1.5.1';
export const TEST_SERVER_VERSION = '1.38.0';
const SLF4J_VERSION = '1.7.36';

export type Progress = (line: string) => void;

export function cacheDir(): string {
  return process.env.CHECKOUT_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'checkout-service');
}

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function which(cmd: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, cmd);
    if (dir && isExecutable(p)) return p;
  }
  return undefined;
}

/** Runs a command, reporting elapsed time every 15 s so a slow first build does not look hung. */
function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; label: string; progress: Progress }): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(cmd, args, { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-8000)));
    child.stderr.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-8000)));
    const timer = setInterval(() => {
      opts.progress(`  … ${opts.label}: ${Math.round((Date.now() - started) / 1000)}s`);
    }, 15_000);
    child.on('error', (err) => {
      clearInterval(timer);
      reject(err);
    });
    child.on('exit', (code) => {
      clearInterval(timer);
      if (code === 0) resolve();
      else reject(new Error(`${opts.label} failed (exit ${code}):\n${output.trim()}`));
    });
  });
}

function download(url: string, dest: string, timeoutMs = 60_000): Promise<void> {
  return (async () => {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
    writeFileSync(dest, Buffer.from(await res.arrayBuffer()));
  })();
}

function extractTarGz(archive: string, dir: string): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile('tar', ['-xzf', archive, '-C', dir], (err) => (err ? reject(err) : resolve())),
  );
}

export class ProvisionError extends Error {
  override name = 'ProvisionError';
}

/** Path of a working Temporal CLI binary; builds it once when nothing else is available. */
export async function ensureTemporalCli(progress: Progress = () => undefined): Promise<string> {
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new ProvisionError(`TEMPORAL_CLI_PATH=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  const target = path.join(cacheDir(), `temporal-cli-${TEMPORAL_CLI_VERSION}`, 'temporal');
  if (isExecutable(target)) return target;
  mkdirSync(path.dirname(target), { recursive: true });
  const work = mkdtempSync(path.join(path.dirname(target), '.work-'));
  const failures: string[] = [];
  try {
    const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
    try {
      progress(`Downloading Temporal CLI ${TEMPORAL_CLI_VERSION} …`);
      const archive = path.join(work, 'cli.tar.gz');
      await download(`https://temporal.download/cli/archive/v${TEMPORAL_CLI_VERSION}?platform=${process.platform}&arch=${arch}`, archive, 20_000);
      await extractTarGz(archive, work);
      if (!isExecutable(path.join(work, 'temporal'))) throw new Error('archive holds no temporal binary');
      renameSync(path.join(work, 'temporal'), target);
      return target;
    } catch (err) {
      failures.push(`official download: ${(err as Error).message}`);
    }
    const go = which('go');
    if (go) {
      progress(`Building Temporal CLI ${TEMPORAL_CLI_VERSION} from the Go module proxy (first time only; a few minutes) …`);
      try {
        await run(go, ['install', `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], {
          env: { ...process.env, GOBIN: work, CGO_ENABLED: '0' },
          label: 'go install temporal',
          progress,
        });
        renameSync(path.join(work, 'temporal'), target);
        progress(`Temporal CLI cached at ${target}`);
        return target;
      } catch (err) {
        failures.push(`go install: ${(err as Error).message}`);
      }
    } else {
      failures.push('go install: no `go` on PATH');
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  throw new ProvisionError(
    `Could not get the Temporal CLI ${TEMPORAL_CLI_VERSION}. Install it and set TEMPORAL_CLI_PATH, ` +
      `or install Go (https://go.dev/dl) so it can be built with ` +
      `\`CGO_ENABLED=0 go install github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}\`.\n` +
      failures.map((f) => `  - ${f}`).join('\n'),
  );
}

/** Path of an executable that starts the time-skipping test server with `<port>` as its argument. */
export async function ensureTestServer(progress: Progress = () => undefined): Promise<string> {
  const fromEnv = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new ProvisionError(`TEMPORAL_TEST_SERVER_PATH=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  const home = path.join(cacheDir(), `temporal-test-server-${TEST_SERVER_VERSION}`);
  const target = path.join(home, 'temporal-test-server');
  if (isExecutable(target)) return target;
  mkdirSync(path.dirname(home), { recursive: true });
  const work = mkdtempSync(path.join(path.dirname(home), '.work-'));
  const failures: string[] = [];
  try {
    const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
    try {
      progress(`Downloading the Temporal time-skipping test server …`);
      const archive = path.join(work, 'ts.tar.gz');
      await download(
        `https://temporal.download/temporal-test-server/default?sdk-name=typescript&sdk-version=1.24.0&platform=${process.platform}&arch=${arch}`,
        archive,
        20_000,
      );
      await extractTarGz(archive, work);
      const bin = path.join(work, 'temporal-test-server');
      if (!isExecutable(bin)) throw new Error('archive holds no temporal-test-server binary');
      mkdirSync(home, { recursive: true });
      renameSync(bin, target);
      return target;
    } catch (err) {
      failures.push(`official download: ${(err as Error).message}`);
    }
    const mvn = which('mvn');
    const java = which('java');
    if (mvn && java) {
      progress(`Fetching the Temporal test server ${TEST_SERVER_VERSION} from Maven Central (first time only) …`);
      try {
        writeFileSync(
          path.join(work, 'pom.xml'),
          `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId><artifactId>temporal-test-server-fetch</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>io.temporal</groupId><artifactId>temporal-test-server</artifactId><version>${TEST_SERVER_VERSION}</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-nop</artifactId><version>${SLF4J_VERSION}</version></dependency>
  </dependencies>
</project>\n`,
        );
        await run(mvn, ['-q', '-B', 'dependency:copy-dependencies', `-DoutputDirectory=${path.join(work, 'lib')}`], {
          cwd: work,
          label: 'mvn dependency:copy-dependencies',
          progress,
        });
        rmSync(home, { recursive: true, force: true });
        mkdirSync(home, { recursive: true });
        renameSync(path.join(work, 'lib'), path.join(home, 'lib'));
        // `exec` matters: the SDK kills the child it started, which must be the JVM itself. The JVM flags
        // trade peak speed for start-up time: the SDK waits only a few seconds for the server to answer.
        writeFileSync(
          target,
          `#!/bin/sh\nexec "${java}" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto -cp "${path.join(home, 'lib')}/*" io.temporal.testserver.TestServer "$@"\n`,
        );
        chmodSync(target, 0o755);
        return target;
      } catch (err) {
        failures.push(`maven: ${(err as Error).message}`);
      }
    } else {
      failures.push(`maven: ${mvn ? '' : 'no `mvn` on PATH '}${java ? '' : 'no `java` on PATH'}`.trim());
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  throw new ProvisionError(
    `Could not get the Temporal time-skipping test server. Set TEMPORAL_TEST_SERVER_PATH to an executable that ` +
      `starts it with the port as its only argument, or install Java 11+ and Maven so it can be fetched from ` +
      `Maven Central (io.temporal:temporal-test-server:${TEST_SERVER_VERSION}).\n` +
      failures.map((f) => `  - ${f}`).join('\n'),
  );
}

