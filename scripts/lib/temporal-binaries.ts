// Finds or makes the Temporal servers we run locally, pinned:
//   - the Temporal CLI (dev server, `temporal server start-dev`),
//   - the Java time-skipping test server (TestWorkflowEnvironment.createTimeSkipping), and
//   - the real Temporal server with its SQL schema tool and schema files (`npm run start:cluster`, the drill).
// Order for each: a path from the environment; a cached copy; the official download (machines with
// internet); offline from the package registries (Go module proxy for the CLI, Maven Central for the test
// server). Builds go to a temp dir and are moved into the cache only when complete.
import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freeLowPort, untilAccepting } from './ports.js';

export const TEMPORAL_CLI_VERSION = '1.5.1';
export const TEST_SERVER_VERSION = '1.38.0';
/** go.temporal.io/server: the newest patch when chosen; its go.mod asks for Go 1.26.10 (GOTOOLCHAIN=auto fetches it). */
export const TEMPORAL_SERVER_VERSION = '1.32.2';
const SLF4J_VERSION = '1.7.36';

export type Progress = (line: string) => void;

export function cacheDir(): string {
  return process.env.CHECKOUT_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'checkout-service');
}

export function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function which(cmd: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, cmd);
    if (dir && isExecutable(p)) return p;
  }
  return undefined;
}

/** Runs a command, reporting elapsed time every 15 s so a slow first build does not look hung. */
export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; label: string; progress: Progress }): Promise<void> {
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

/** Runs a command and answers its trimmed stdout. */
function capture(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { env }, (err, stdout) => (err ? reject(err) : resolve(stdout.trim()))),
  );
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
  if (isExecutable(target)) {
    // The Maven-built server (a JVM): its class-data archive, made once (older caches have none).
    const java = which('java');
    if (existsSync(path.join(home, 'lib')) && java) await ensureTestServerArchive(home, java, progress);
    return target;
  }
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
        await ensureTestServerArchive(home, java, progress);
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

const TEST_SERVER_JVM_FLAGS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto';

/**
 * The JVM test server's launcher and its class-data-sharing archive. The suite starts a server per
 * time-skipping test (about fifty a run); with the classes it loads at start-up archived once, a start
 * takes ~0.35 s of CPU instead of ~1.1 s. `-Xshare:auto` ignores an archive the JVM cannot use (another
 * Java, another class path) and starts as before. Written to a temporary name and renamed, so a suite
 * starting servers meanwhile never reads half an archive.
 */
async function ensureTestServerArchive(home: string, java: string, progress: Progress): Promise<void> {
  const target = path.join(home, 'temporal-test-server');
  const archive = path.join(home, 'classes.jsa');
  const classPath = `${path.join(home, 'lib')}/*`;
  const launcher = (withArchive: boolean) =>
    // `exec` matters: whoever started the server kills that child, which must be the JVM itself. The JVM
    // flags trade peak speed for start-up time.
    `#!/bin/sh\nexec "${java}" ${TEST_SERVER_JVM_FLAGS}${withArchive ? ` "-XX:SharedArchiveFile=${archive}"` : ''} -cp "${classPath}" io.temporal.testserver.TestServer "$@"\n`;
  const writeLauncher = (withArchive: boolean) => {
    writeFileSync(`${target}.new`, launcher(withArchive));
    chmodSync(`${target}.new`, 0o755);
    renameSync(`${target}.new`, target);
  };
  if (existsSync(archive)) {
    if (!isExecutable(target) || readFileSync(target, 'utf8') !== launcher(true)) writeLauncher(true);
    return;
  }
  progress('Archiving the test server’s start-up classes (first time only) …');
  const pending = `${archive}.${process.pid}.tmp`;
  try {
    await dumpStartupClasses(java, classPath, pending);
    renameSync(pending, archive);
    writeLauncher(true);
  } catch (err) {
    // Slower starts, same behaviour: the launcher without an archive.
    rmSync(pending, { force: true });
    progress(`(no class-data archive: ${(err as Error).message})`);
    writeLauncher(false);
  }
}

/** Starts the test server with -XX:ArchiveClassesAtExit, waits until it answers, stops it: the JVM writes the archive on exit. */
async function dumpStartupClasses(java: string, classPath: string, archive: string): Promise<void> {
  const port = await freeLowPort();
  const child = spawn(java, [...TEST_SERVER_JVM_FLAGS.split(' '), `-XX:ArchiveClassesAtExit=${archive}`, '-cp', classPath, 'io.temporal.testserver.TestServer', String(port)], { stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await untilAccepting(port, child, 60_000).catch((err: Error) => {
      throw new Error(`the test server ${err.message}`);
    });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  if (!existsSync(archive)) throw new Error('the JVM wrote no archive');
}

/** The real Temporal server, its schema tool and the PostgreSQL schema files they were released with. */
export interface TemporalServerBinaries {
  version: string;
  /** `temporal-server --config-file <yaml> --allow-no-auth start` */
  server: string;
  /** `temporal-sql-tool --plugin postgres12 … setup-schema / update-schema` */
  sqlTool: string;
  /** schema/postgresql/v12 of the module: temporal/versioned and visibility/versioned. */
  postgresSchemaDir: string;
}

/**
 * The Temporal server (go.temporal.io/server/cmd/server) and temporal-sql-tool (cmd/tools/sql) built from
 * the Go module proxy, once, into the cache; the schema files are copied there from the module cache, so
 * the schema always matches the binary. The module has no `replace` directives, so `go install pkg@tag`
 * works; GOTOOLCHAIN=auto lets Go fetch the toolchain its go.mod asks for (from the same proxy).
 */
export async function ensureTemporalServer(progress: Progress = () => undefined): Promise<TemporalServerBinaries> {
  const home = path.join(cacheDir(), `temporal-server-${TEMPORAL_SERVER_VERSION}`);
  const found: TemporalServerBinaries = {
    version: TEMPORAL_SERVER_VERSION,
    server: path.join(home, 'temporal-server'),
    sqlTool: path.join(home, 'temporal-sql-tool'),
    postgresSchemaDir: path.join(home, 'schema', 'postgresql', 'v12'),
  };
  if (isExecutable(found.server) && isExecutable(found.sqlTool) && existsSync(path.join(found.postgresSchemaDir, 'temporal', 'versioned'))) return found;
  const go = which('go');
  if (!go) {
    throw new ProvisionError(
      `The Temporal server ${TEMPORAL_SERVER_VERSION} is built from the Go module proxy and needs Go (https://go.dev/dl) on PATH:\n` +
        `  go install go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION} go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
    );
  }
  mkdirSync(path.dirname(home), { recursive: true });
  const work = mkdtempSync(path.join(path.dirname(home), '.work-'));
  try {
    const env = { ...process.env, GOBIN: path.join(work, 'bin'), CGO_ENABLED: '0', GOTOOLCHAIN: process.env.GOTOOLCHAIN === 'local' || !process.env.GOTOOLCHAIN ? 'auto' : process.env.GOTOOLCHAIN };
    progress(`Building the Temporal server ${TEMPORAL_SERVER_VERSION} and temporal-sql-tool from the Go module proxy (first time only; several minutes) …`);
    const started = Date.now();
    const module = `go.temporal.io/server`;
    try {
      await run(go, ['install', `${module}/cmd/server@v${TEMPORAL_SERVER_VERSION}`, `${module}/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`], { env, label: 'go install temporal server', progress });
    } catch (err) {
      throw new ProvisionError(`Could not build the Temporal server ${TEMPORAL_SERVER_VERSION}: ${(err as Error).message}`);
    }
    const modCache = await capture(go, ['env', 'GOMODCACHE'], env);
    const schema = path.join(modCache, `${module}@v${TEMPORAL_SERVER_VERSION}`, 'schema', 'postgresql', 'v12');
    if (!existsSync(schema)) throw new ProvisionError(`The Temporal server built, but its schema files are not at ${schema}`);
    const staged = path.join(work, 'home');
    mkdirSync(path.join(staged, 'schema', 'postgresql'), { recursive: true });
    renameSync(path.join(work, 'bin', 'server'), path.join(staged, 'temporal-server'));
    renameSync(path.join(work, 'bin', 'sql'), path.join(staged, 'temporal-sql-tool'));
    // The module cache is read-only: copy (not move), and make the copy writable so the cache can be deleted.
    cpSync(schema, path.join(staged, 'schema', 'postgresql', 'v12'), { recursive: true });
    chmodTree(path.join(staged, 'schema'));
    rmSync(home, { recursive: true, force: true });
    renameSync(staged, home);
    progress(`Temporal server cached at ${home} (built in ${Math.round((Date.now() - started) / 1000)} s)`);
    return found;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function chmodTree(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) chmodTree(p);
    else chmodSync(p, 0o644);
  }
}
