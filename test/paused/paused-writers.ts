import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { leaseHeld, LEASE_KEY } from '../../src/publish/bucket-lease.ts';
import type { LocalBucket } from '../../src/storage/local-bucket.ts';
import type { S3Bucket } from '../../src/storage/s3-bucket.ts';
import { sha256Hex } from '../../src/util/digests.ts';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { onDay, REPO, runCli, type CliResult } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { TEST_BACKUP_RECIPIENT } from '../helpers/backup-key.ts';
import { startWriter, type RunningWriter, type WriterKind } from './writers.ts';

/**
 * The pause matrix of docs/architecture.md ("Every bucket write"): writer A, a real process, is
 * stopped (SIGSTOP, by the failpoint of src/storage/write-failpoint.ts) right before each of its
 * bucket writes in turn; its lease is taken from it (as its expiry would); writer B, another
 * machine, runs one command to completion; then A resumes. Whatever the pair and the moment:
 * what B reported done is intact, current.json moved only by switches someone reported (or that
 * happened before the pause), the bucket verifies, and A's report is true.
 */

const CIGARETTES = join(REPO, 'fixtures/sample/tariff/sigarette-2026-11-01.xml');
const LIQUIDS = join(REPO, 'fixtures/adm/listino-liquidi-2026-11-01.pdf');
// Small lists of two pages' worth: the bucket writes of an import are the same whatever the list's
// length, and reading the PDF is proven by the reader's own proofs (a real 1.2 MB list cost 68 %
// of the folder matrix's time).
const DOCUMENT_A = join(REPO, 'fixtures/adm/listino-sigaretti-2026-11-01.pdf');
const DOCUMENT_B = join(REPO, 'fixtures/adm/listino-trinciati-2026-11-01.pdf');
const DAY = '2026-11-22';

/** A bucket the harness reads, seeds and takes the lease from directly (not through a writer). */
export type RawBucket = LocalBucket | S3Bucket;

/** Where one scenario runs: a bucket of its own, seeded from the base state. */
export interface Backend {
  name: string;
  /** The environment every command needs to reach the store. */
  env: Record<string, string>;
  /** A fresh bucket holding the base state; its URI and a raw handle on it. */
  fresh(base: Base): Promise<{ uri: string; raw: RawBucket }>;
  /** The base state's bucket, written once by `prepare` (`root` is prepare's folder). */
  base(root: string): { uri: string; raw: RawBucket };
}

/** What every scenario starts from: built releases, signing keys, a data dir per machine, the base bucket. */
export interface Base {
  /** Where it lies (the base bucket of a folder backend too): removed by `close`. */
  root: string;
  template: string;
  builds: Record<'r3a' | 'r3b' | 'r4b', string>;
  signingKey: string;
  spareKeyId: string;
  authority: AuthorityServer;
}

export type Role = 'A' | 'B';
export const A_COMMANDS = [
  'publish',
  'release',
  'rollback',
  'signing-key create',
  'signing-key retire',
  'history import',
  'history remove',
  'registry backup',
] as const;
export const B_COMMANDS = [...A_COMMANDS, 'publish-next'] as const;
export type Command = (typeof B_COMMANDS)[number];

/** B, for each A: the writer that contends for what A writes (the fixed core on Ceph pairs each A with it). */
export const RIVAL: Record<(typeof A_COMMANDS)[number], Command> = {
  publish: 'publish-next',
  release: 'publish-next',
  rollback: 'publish-next',
  'signing-key create': 'signing-key create',
  'signing-key retire': 'signing-key create',
  'history import': 'history import',
  'history remove': 'history import',
  'registry backup': 'registry backup',
};

/** A GTIN-13 of AURORA ROSSA (1001) numbered `n`, with its check digit. */
function barcode(n: number): string {
  const body = `800100${String(n).padStart(6, '0')}`;
  const sum = [...body].reduce((total, digit, i) => total + Number(digit) * (i % 2 === 0 ? 1 : 3), 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

function barcodesFile(dir: string, n: number): string {
  const path = join(dir, `barcodes-${n}.csv`);
  writeFileSync(path, `barcode,admCode,kind,units\n${barcode(n)},1001,pack,1\n`);
  return path;
}

const ok = (result: CliResult, what: string) => expect(result.status, `${what}: ${result.stderr}`).toBe(0);

/**
 * The base state, once per backend: releases .1 and .2 published and signed (key K0; a spare K1
 * listed), the liquids list imported into the history, a registry with one account; and, built
 * beside it, A's and B's own .3 (other barcodes, so other bytes) and B's .4.
 */
export async function prepare(backend: Backend): Promise<Base> {
  // Kept for every test of the file (tempDir's are removed after each): removed by `close`.
  const root = mkdtempSync(join(tmpdir(), 'tariff-paused-'));
  const template = join(root, 'template');
  const authority = await new AuthorityServer().start();
  authority.lists.set('/sigarette.xml', { body: readFileSync(CIGARETTES) });
  const { uri } = backend.base(root);
  const env = { ...backend.env, ...onDay(DAY), TARIFF_BUCKET: uri };
  const cli = (args: string[], extra: Record<string, string> = {}) =>
    runCli([...args, '--data-dir', template], { env: { ...env, ...extra } });
  const build = async (name: string, n: number, previous: string | null) => {
    const out = join(root, 'builds', name);
    const args = ['build', '--source', CIGARETTES, '--barcodes', barcodesFile(root, n), '--date', DAY, '--out', out];
    ok(await cli([...args, ...(previous ? ['--previous', previous] : [])]), `build ${name}`);
    return out;
  };
  const signingKey = JSON.parse((await cli(['signing-key', 'create', '--json'])).stdout).file as string;
  const spareKeyId = JSON.parse((await cli(['signing-key', 'create', '--json'])).stdout).keyId as string;
  const signed = { TARIFF_SIGNING_KEY: signingKey };
  const r1 = await build('r1', 1, null);
  const r2 = await build('r2', 2, r1);
  const builds = { r3a: await build('r3a', 3, r2), r3b: await build('r3b', 4, r2), r4b: '' };
  builds.r4b = await build('r4b', 5, builds.r3a);
  for (const folder of [r1, r2]) ok(await cli(['publish', folder], signed), `publish ${folder}`);
  ok(await cli(['history', 'import', LIQUIDS]), 'history import');
  ok(await cli(['accounts', 'create', 'cassa@example.it', '--type', 'User']), 'accounts create');
  return { root, template, builds, signingKey, spareKeyId, authority };
}

/** Ends what `prepare` started and removes what it wrote. */
export async function close(base: Base | undefined): Promise<void> {
  if (!base) return;
  await base.authority.close();
  rmSync(base.root, { recursive: true, force: true });
}

/** The command's arguments and environment, as machine `role` runs it (A and B publish other bytes, import other lists). */
function commandOf(base: Base, command: Command, role: Role, uri: string): string[] {
  switch (command) {
    case 'publish':
      return ['publish', role === 'A' ? base.builds.r3a : base.builds.r3b];
    case 'publish-next':
      return ['publish', base.builds.r4b];
    case 'release':
      return ['release', '--barcodes', barcodesFile(base.root, role === 'A' ? 6 : 7)];
    case 'rollback':
      return ['rollback', '20261101.1'];
    case 'signing-key create':
      return ['signing-key', 'create'];
    case 'signing-key retire':
      return ['signing-key', 'retire', base.spareKeyId];
    case 'history import':
      return ['history', 'import', role === 'A' ? DOCUMENT_A : DOCUMENT_B];
    case 'history remove':
      return ['history', 'remove', 'listino-liquidi-2026-11-01.pdf', '--apply'];
    case 'registry backup':
      return ['registry', 'backup', '--to', uri];
  }
}

/** One run's outcome, for the judge. */
export interface Outcome {
  command: Command;
  result: CliResult;
  /** What its --json said, when it succeeded. */
  said: Record<string, unknown> | null;
}

/** What a run reported as made current, when it reports a switch (or a release already current). */
function reportedCurrent(outcome: Outcome): string | null {
  if (outcome.result.status !== 0 || !outcome.said) return null;
  if (!['publish', 'publish-next', 'release', 'rollback'].includes(outcome.command)) return null;
  return (outcome.said.version as string | undefined) ?? null;
}

/** Reads the current release's version straight from the bucket. */
async function currentOf(raw: RawBucket): Promise<string | null> {
  const bytes = await raw.get('current.json');
  return bytes ? (JSON.parse(bytes.toString()).version as string) : null;
}

/**
 * The scenarios of one pair: A runs `a` stopped before its write at each of `moments` (1 is its
 * first; every moment of A's recorded write list by default) while B runs `b`. The first and the
 * last moment of the pair's whole list stop a real process; the others the warm writer thread.
 * Fails with every scenario that broke a promise, named; returns how many moments were tried.
 */
export async function pausePair(
  backend: Backend,
  base: Base,
  a: Command,
  b: Command,
  count: number,
  options: { stopper?: Stopper; moments?: readonly number[] } = {},
): Promise<number> {
  const stopper = options.stopper ?? pauseBeforeWrite;
  const moments = options.moments ?? Array.from({ length: count }, (_, i) => i + 1);
  const failures: string[] = [];
  for (const moment of moments) {
    const kind: WriterKind = moment === 1 || moment === count ? 'process' : 'thread';
    const run = await runScenario(backend, base, a, b, moment, stopper, kind);
    if (!run)
      failures.push(`${backend.name}: ${a} ${stopper.what} ${moment}: A ended without getting there (its recorded list has ${count})`);
    else if (run.problems.length > 0) failures.push(describeRun(run));
  }
  expect(failures, `${a} ${stopper.what}, ${b} run meanwhile`).toEqual([]);
  if (process.env.TARIFF_TEST_PAUSED_VERBOSE) console.log(`${backend.name}: ${a} ${stopper.what} ${moments.join(' ')}, ${b} meanwhile`);
  return moments.length;
}

/** One scenario as it went: where A stopped, what each said, current.json at each turn, and what broke. */
export interface ScenarioRun {
  where: string;
  pausedAt: string;
  a: Outcome;
  b: Outcome;
  current: { atPause: string | null; afterB: string | null; final: string | null };
  problems: string[];
  uri: string;
  raw: RawBucket;
}

export const describeRun = (run: ScenarioRun) =>
  `${run.where} (${run.pausedAt}): ${run.problems.join('; ')}\n  A exit ${run.a.result.status}: ${lastLines(run.a.result.stderr)}\n  B exit ${run.b.result.status}: ${lastLines(run.b.result.stderr)}`;

const lastLines = (text: string) => text.trim().split('\n').slice(-2).join(' | ');

/**
 * How writer A is stopped at one moment of its run while B runs, then let go on: by its failpoint
 * before a write of its own (the pause matrix), or by the network holding one of its write requests
 * or their answers (the lost-answer matrix, test/paused/lost-answers.ts).
 */
export interface Stopper {
  /** What the pair's name says of it ("stopped before its write", "its request held at write"). */
  what: string;
  /** A's environment, so that it stops at `at`. */
  env(at: number | string): Record<string, string>;
  /**
   * Resolves once A is stopped at `at`, with what it was doing and how many writes A's failpoint
   * log held then (the stopped one last); null once A has ended without stopping there.
   */
  stopped(at: number | string, writer: RunningWriter, log: () => string[]): Promise<{ line: string; logged: number } | null>;
  /** Lets A go on. */
  resume(writer: RunningWriter): void;
}

/** Stopped right before A's write `at` (its nth, or its first write of a line such as "swap current.json"), by the failpoint. */
export const pauseBeforeWrite: Stopper = {
  what: 'stopped before its write',
  env: (at) => ({ TARIFF_TEST_PAUSE_BEFORE_WRITE: String(at) }),
  async stopped(at, writer, log) {
    const stoppedAt = () => (typeof at === 'number' ? at : log().findIndex((line) => line.startsWith(at)) + 1);
    await waitFor(
      () => writer.ended() || (stoppedAt() > 0 && log().length >= stoppedAt() && writer.stopped()),
      `${String(at)}: A to stop`,
      60_000,
    );
    if (writer.ended()) return null;
    return { line: log()[stoppedAt() - 1]!, logged: stoppedAt() };
  },
  resume: (writer) => writer.resume(),
};

/** The environment machine `role` runs with in a scenario on bucket `uri`, its writes logged in `dir`. */
function scenarioEnv(backend: Backend, base: Base, role: Role, uri: string, dir: string, dataDir: string): Record<string, string> {
  return {
    ...backend.env,
    ...onDay(DAY),
    NO_COLOR: '1',
    TARIFF_BUCKET: uri,
    TARIFF_KEEP: '1',
    TARIFF_SIGNING_KEY: base.signingKey,
    TARIFF_SOURCE_URLS: base.authority.url('/sigarette.xml'),
    TARIFF_TEST_BUCKET_WRITES: join(dir, `${role}-writes.log`),
    TARIFF_DATA_DIR: dataDir,
    TARIFF_BACKUP_RECIPIENTS: TEST_BACKUP_RECIPIENT,
  };
}

const linesOf = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : []);

/**
 * Writer A's bucket writes when it runs `a` alone on a fresh bucket of the base state, in order, as
 * its failpoint logs them: the moments of every pair with `a` (nothing else has happened before A
 * stops, so the list is the same whoever B is). Run in the writer thread, once per command.
 */
export async function recordWrites(backend: Backend, base: Base, a: Command, extraEnv: Record<string, string> = {}): Promise<string[]> {
  const dir = await tempDir();
  const { uri } = await backend.fresh(base);
  const dataA = join(dir, 'A');
  cpSync(base.template, dataA, { recursive: true });
  const writer = startWriter('thread', [...commandOf(base, a, 'A', uri), '--json', '--data-dir', dataA], {
    ...scenarioEnv(backend, base, 'A', uri, dir, dataA),
    ...extraEnv,
  });
  const result = await writer.exited;
  expect(result.status, `${a} alone on a fresh bucket: ${result.stderr}`).toBe(0);
  return linesOf(join(dir, 'A-writes.log'));
}

/**
 * One scenario: A stopped at `at` by `stopper` (before its write `at` by default), as a real
 * process or in the warm writer thread. Null when A never got there (it ran through).
 */
export async function runScenario(
  backend: Backend,
  base: Base,
  a: Command,
  b: Command,
  at: number | string,
  stopper: Stopper = pauseBeforeWrite,
  kind: WriterKind = 'process',
): Promise<ScenarioRun | null> {
  const dir = await tempDir();
  const { uri, raw } = await backend.fresh(base);
  const machine = (role: Role) => {
    const dataDir = join(dir, role);
    cpSync(base.template, dataDir, { recursive: true });
    return dataDir;
  };
  const env = (role: Role, dataDir: string) => scenarioEnv(backend, base, role, uri, dir, dataDir);
  const where = `${backend.name}: ${a} ${stopper.what} ${at}${kind === 'thread' ? ' (thread)' : ''}, ${b} run meanwhile`;
  const dataA = machine('A');
  const dataB = machine('B');
  const argsA = [...commandOf(base, a, 'A', uri), '--json', '--data-dir', dataA];
  const writer = startWriter(kind, argsA, { ...env('A', dataA), ...stopper.env(at) });
  const log = join(dir, 'A-writes.log');
  const stop = await stopper.stopped(at, writer, () => linesOf(log));
  if (!stop) {
    await writer.exited;
    return null;
  }
  const pausedAt = stop.line;
  const atPause = await currentOf(raw);
  // A's lease runs out while it is stopped: taken from it here rather than waited for.
  await raw.delete([LEASE_KEY]);
  const resultB = await runCli([...commandOf(base, b, 'B', uri), '--json', '--data-dir', dataB], { env: env('B', dataB) });
  const afterB = await currentOf(raw);
  stopper.resume(writer);
  const resultA = await writer.exited;
  const outcome = (command: Command, result: CliResult): Outcome => ({
    command,
    result,
    said: result.status === 0 ? parseJson(result.stdout) : null,
  });
  const outcomeA = outcome(a, resultA);
  const outcomeB = outcome(b, resultB);
  const final = await currentOf(raw);
  const verified = await runCli(['verify', '--bucket', uri, '--data-dir', dataB], { env: env('B', dataB) });
  const current = { atPause, afterB, final };
  const problems = [
    ...truthful('A', outcomeA, final),
    ...truthful('B', outcomeB, afterB),
    ...(await intact(raw, base, outcomeB, 'B')),
    ...(await intact(raw, base, outcomeA, 'A')),
    ...movedOnlyByReports(current, outcomeA, outcomeB, linesOf(log).slice(stop.logged - 1)),
    ...(verified.status === 0 ? [] : [`verify --bucket exits ${verified.status}: ${verified.stderr.trim()}`]),
    ...(leaseHeld(await raw.get(LEASE_KEY)) ? ['a writer lease is left in the bucket'] : []),
  ];
  return { where, pausedAt, a: outcomeA, b: outcomeB, current, problems, uri, raw };
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** A report is true: never "a bug", a named failure, exit 3 only while the release it names is current. */
function truthful(role: Role, outcome: Outcome, currentThen: string | null): string[] {
  const { result } = outcome;
  const problems: string[] = [];
  if (/internal error|This is a bug/.test(result.stderr)) problems.push(`${role} says it met a bug`);
  // 2 is a refusal of what was asked (a key retired meanwhile by the other): named too.
  if (![0, 1, 2, 3].includes(result.status)) problems.push(`${role} exits ${result.status}`);
  if ([1, 2].includes(result.status) && !/^tariff: /m.test(result.stderr)) problems.push(`${role} fails without saying why`);
  if (result.status === 3) {
    const named = /tariff: (\d{8}\.\d+) is now the current release/.exec(result.stderr)?.[1];
    if (named !== currentThen) problems.push(`${role} exits 3 saying ${named} is current, while ${currentThen} is`);
  }
  return problems;
}

/** What a run reported done is there, whole, when the other has finished too. */
async function intact(raw: RawBucket, base: Base, outcome: Outcome, role: Role): Promise<string[]> {
  if (outcome.result.status !== 0 || !outcome.said) return [];
  const said = outcome.said;
  const problems: string[] = [];
  const manifestOf = async (version: string) => {
    const bytes = await raw.get(`releases/${version}/manifest.json`);
    return bytes ? (JSON.parse(bytes.toString()) as { files: Record<string, { sha256: string; size: number }> }) : null;
  };
  const whole = async (version: string, expected?: string) => {
    const manifest = await manifestOf(version);
    if (!manifest) return problems.push(`${role}'s ${version} has no manifest in the bucket`);
    if (expected) {
      const built = JSON.parse(readFileSync(join(expected, 'manifest.json'), 'utf8')) as { files: Record<string, { sha256: string }> };
      for (const format of Object.keys(built.files))
        if (built.files[format]!.sha256 !== manifest.files[format]?.sha256)
          problems.push(`${role}'s ${version} holds another release's ${format}`);
    }
    for (const [format, digest] of Object.entries(manifest.files)) {
      const name = { json: 'dataset.json.gz', sqlite: 'dataset.sqlite.gz', docdb: 'dataset.docdb.gz' }[format]!;
      const bytes = await raw.get(`releases/${version}/${name}`);
      if (!bytes || sha256Hex(bytes) !== digest.sha256) problems.push(`${role}'s ${version} ${format} is not whole`);
    }
    return 0;
  };
  const keys = async () =>
    JSON.parse((await raw.get('keys.json'))?.toString() ?? '{"keys":[]}') as { keys: { keyId: string; retiredAt: string | null }[] };
  const imports = async () => {
    type Named = { file: string } | null | undefined;
    const manifest = JSON.parse((await raw.get('history/manifest.json'))!.toString()) as {
      imports?: string[];
      file?: string;
      checkpoint?: Named;
      base?: Named;
      segments?: Named[];
      head?: Named;
    };
    // Every file the manifest names, of either layout: one file (1.0.0), or a log.
    const named = manifest.file ? [manifest.file] : [manifest.checkpoint, manifest.base, ...(manifest.segments ?? []), manifest.head];
    for (const name of named.map((entry) => (typeof entry === 'string' ? entry : entry?.file)).filter((entry) => entry !== undefined)) {
      const file = await raw.get(`history/${name}`);
      if (!file) problems.push(`the history file ${name} is missing`);
      else gunzipSync(file);
    }
    return (manifest.imports ?? []).map((key) => key.slice('history/imports/'.length, 'history/imports/'.length + 64));
  };
  switch (outcome.command) {
    case 'publish':
    case 'publish-next': {
      const folder = outcome.command === 'publish-next' ? base.builds.r4b : role === 'A' ? base.builds.r3a : base.builds.r3b;
      await whole(said.version as string, folder);
      break;
    }
    case 'release':
      if (said.status === 'published') await whole(said.version as string);
      break;
    case 'rollback':
      await whole('20261101.1');
      break;
    case 'signing-key create':
      if (!(await keys()).keys.some((key) => key.keyId === said.keyId))
        problems.push(`${role}'s key ${String(said.keyId)} is gone from keys.json`);
      break;
    case 'signing-key retire':
      if (!(await keys()).keys.find((key) => key.keyId === base.spareKeyId)?.retiredAt)
        problems.push(`${role}'s retirement of the spare key is gone`);
      break;
    case 'history import': {
      const digest = sha256Hex(readFileSync(role === 'A' ? DOCUMENT_A : DOCUMENT_B));
      if (!(await imports()).includes(digest)) problems.push(`${role}'s import is gone from the history`);
      break;
    }
    case 'history remove':
      if ((await imports()).includes(sha256Hex(readFileSync(LIQUIDS))))
        problems.push(`the liquids list ${role} removed is back in the history`);
      break;
    case 'registry backup': {
      const record = (said.record ?? {}) as { file?: string; sha256?: string };
      const bytes = record.file ? await raw.get(`backups/registry/${record.file}`) : null;
      if (!bytes || sha256Hex(bytes) !== record.sha256) problems.push(`${role}'s backup ${String(record.file)} is not whole`);
      break;
    }
  }
  return problems;
}

/**
 * current.json moved only by a switch someone made: B's run leaves it at what B reported (or as
 * it was when A stopped, if B switched nothing); A, resumed, leaves it at what A reported, or as B
 * left it. A switch that A made before it was stopped is what B found.
 */
function movedOnlyByReports(
  seen: { atPause: string | null; afterB: string | null; final: string | null },
  outcomeA: Outcome,
  outcomeB: Outcome,
  writesAfterPause: string[],
): string[] {
  const problems: string[] = [];
  const byB = reportedCurrent(outcomeB);
  if (byB !== null && seen.afterB !== byB) problems.push(`B reported ${byB} current, but ${seen.afterB} is`);
  if (byB === null && outcomeB.result.status !== 3 && seen.afterB !== seen.atPause)
    problems.push(`current.json moved from ${seen.atPause} to ${seen.afterB} while B reported no switch`);
  const byA = reportedCurrent(outcomeA);
  const aSwapped = writesAfterPause.some((line) => line === 'swap current.json');
  // A stopped as it let its lease go (its last write), its work done and checked: B's switch came after A's last look.
  const lastLook =
    writesAfterPause.length === 1 && writesAfterPause[0] === `swap ${LEASE_KEY}` && seen.atPause === byA && byB === seen.final;
  if (byA !== null && seen.final !== byA && !lastLook) problems.push(`A reported ${byA} current, but ${seen.final} is`);
  if (byA === null && outcomeA.result.status !== 3 && seen.final !== seen.afterB)
    problems.push(
      `current.json moved from ${seen.afterB} to ${seen.final} after A resumed, while A reported no switch${aSwapped ? ' (A swapped it)' : ''}`,
    );
  return problems;
}

/** The code a failed run's --json names. */
const codeOf = (outcome: Outcome): string | undefined => (parseJson(outcome.result.stdout)?.error as { code?: string } | undefined)?.code;

/**
 * The cases found on the code before this design (issue 55), each a named scenario of the matrix:
 * every one of them broke a promise then, and keeps it now.
 */
export function pausedWriterCases(backend: Backend, base: () => Base): void {
  const run = async (a: Command, b: Command, line: string) => {
    const scenario = await runScenario(backend, base(), a, b, line);
    expect(scenario, `${a} makes a write "${line}"`).not.toBeNull();
    expect(scenario!.problems, describeRun(scenario!)).toEqual([]);
    return scenario!;
  };
  it('bytes under a published name never change: A, stopped before its first upload, is refused when B published the version with other bytes', async () => {
    const { a, b, current } = await run('publish', 'publish', 'create releases/20261101.3/dataset.json.gz');
    expect(b.result.status).toBe(0);
    expect([a.result.status, codeOf(a)]).toEqual([1, 'version_conflict']);
    expect(current.final).toBe('20261101.3');
  });
  it('a replaced pointer never comes back: A, stopped before its switch, is refused once B has made 20261101.4 current', async () => {
    const { a, current } = await run('publish', 'publish-next', 'swap current.json');
    expect([a.result.status, codeOf(a)]).toEqual([1, 'bucket_changed']);
    expect(current.final).toBe('20261101.4');
  });
  it('the history stays whole: A, stopped before naming its new history, is refused once B has imported another list', async () => {
    const { a, b } = await run('history import', 'history import', 'swap history/manifest.json');
    expect(b.result.status).toBe(0);
    expect([a.result.status, codeOf(a)]).toEqual([1, 'bucket_changed']);
  });
  it('a rollback target survives a prune that decided before it: marked by A, kept and its mark dropped by the next run', async () => {
    const scenario = await run('publish', 'rollback', 'create deletions/');
    expect(scenario.current.final).toBe('20261101.1');
    // A made 20261101.3 current, but B rolled back since: A says so.
    expect([scenario.a.result.status, codeOf(scenario.a)]).toEqual([1, 'bucket_changed']);
    const listed = await runCli(['releases', '--json', '--bucket', scenario.uri], { env: { ...backend.env, ...onDay(DAY) } });
    expect(JSON.parse(listed.stdout)).toMatchObject({ current: '20261101.1' });
    // The next writer's sweep, with every mark due (no retention), keeps the current release and drops A's mark.
    const next = await runCli(['history', 'import', DOCUMENT_B, '--bucket', scenario.uri, '--data-dir', await tempDir()], {
      env: { ...backend.env, ...onDay(DAY), TARIFF_RETENTION_HOURS: '0', TARIFF_KEEP: '1' },
    });
    expect(next.status, next.stderr).toBe(0);
    const after = JSON.parse(
      (await runCli(['releases', '--json', '--bucket', scenario.uri], { env: { ...backend.env, ...onDay(DAY) } })).stdout,
    );
    expect(after).toMatchObject({ current: '20261101.1', marked: [] });
    expect(after.versions).toContain('20261101.1');
    const verified = await runCli(['verify', '--bucket', scenario.uri, '--data-dir', await tempDir()], {
      env: { ...backend.env, ...onDay(DAY) },
    });
    expect(verified.status, verified.stderr).toBe(0);
  });
  it('a signing key is never lost: A, stopped before writing keys.json, is refused once B has added its own key', async () => {
    const { a, b } = await run('signing-key create', 'signing-key create', 'swap keys.json');
    expect(b.result.status).toBe(0);
    expect([a.result.status, codeOf(a)]).toEqual([1, 'bucket_changed']);
  });
  it('a true report: A, stopped after its switch at its history, says another writer made 20261101.4 current, never "needs no undoing"', async () => {
    const { a, current } = await run('publish', 'publish-next', 'swap history/manifest.json');
    expect(current.atPause).toBe('20261101.3');
    expect(current.final).toBe('20261101.4');
    expect([a.result.status, codeOf(a)]).toEqual([1, 'bucket_changed']);
    expect(a.result.stderr).toContain('this run made 20261101.3 current, but another writer has made 20261101.4 current since');
    expect(a.result.stderr).not.toContain('needs no undoing');
  });
}
