// The benchmark's driver (bench/run runs it after the build):
//
//   node bench/main.mjs [--strict] [SECTION...]     (default: every section)
//
// Runs the sections in order, each measuring abcictl against its peer in the
// same run, then prints one markdown table and the machine it ran on, and
// writes the rows as JSON to <build>/bench-results.json. Exits 0 even when a
// target is missed (✘), 1 then with --strict, and 1 when a section fails.
//
// A section is bench/sections/<name>.mjs exporting `default async (ctx)`,
// ctx = {root, build, abcictl, lib}, resolving to rows {measurement, ours,
// peer, ratio, target, met[, raw]}: ours/peer human strings with units, ratio
// a number, target a string ("≥ 10×"), met a boolean, raw any figures for the
// JSON file. Sections write progress to stderr only.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release } from 'node:os';
import { isAbsolute, join } from 'node:path';
import * as lib from './lib.mjs';

const kSections = ['mint', 'sustained', 'one_mint', 'startup', 'read', 'crypto', 'replicas', 'metrics', 'cost', 'signer', 'async'];
// Sections written alongside this driver that may not exist yet in a checkout.
const kOptional = new Set(['mint']);

function usage(message) {
  process.stderr.write(`${message}\nusage: bench/run [--strict] [${kSections.join('|')}]...\n`);
  process.exit(2);
}

// The machine, and how busy it was when the run began (the ratios hold up
// under load better than the absolute figures do).
function machine(load) {
  const model = /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? 'unknown CPU';
  return `${cpus().length} × ${model.trim()}, Linux ${release()}, load average ${load.toFixed(1)} at the start, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function ratioText(ratio) {
  if (!Number.isFinite(ratio)) return 'n/a';
  return `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
}

function table(rows) {
  const lines = ['| measurement | abcictl | peer (same run) | ratio | target | met |', '|---|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.measurement} | ${r.ours} | ${r.peer} | ${ratioText(r.ratio)} | ${r.target} | ${r.met ? '✔' : '✘'} |`);
  return lines.join('\n');
}

const args = process.argv.slice(2);
const strict = args.includes('--strict');
const chosen = args.filter((a) => a !== '--strict');
for (const a of chosen) if (!kSections.includes(a)) usage(`unknown section: ${a}`);

const build = process.env.ABCICTL_BENCH_BUILD || 'build-bench';
const ctx = { root: lib.root, build: isAbsolute(build) ? build : join(lib.root, build), lib };
ctx.abcictl = join(ctx.build, 'src', 'abcictl');
if (!existsSync(ctx.abcictl)) usage(`no abcictl in ${ctx.build}/src (run bench/run, or set ABCICTL_BENCH_BUILD to a build)`);

const startLoad = loadavg()[0];
const rows = [];
const failures = [];
for (const name of chosen.length ? chosen : kSections) {
  const file = join(lib.root, 'bench', 'sections', `${name}.mjs`);
  if (kOptional.has(name) && !existsSync(file)) {
    process.stderr.write(`bench ${name}: skipped (bench/sections/${name}.mjs does not exist yet)\n`);
    continue;
  }
  process.stderr.write(`bench ${name}: starting\n`);
  const started = Date.now();
  try {
    const section = await import(file);
    rows.push(...(await section.default(ctx)));
    process.stderr.write(`bench ${name}: done in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  } catch (e) {
    // The other sections still run; the table names the failed one.
    process.stderr.write(`bench ${name}: FAILED: ${e.stack ?? e}\n`);
    failures.push(name);
    rows.push({ measurement: `${name}: failed (see stderr)`, ours: '', peer: '', ratio: NaN, target: '', met: false });
  }
}

const where = machine(startLoad);
process.stdout.write(`\n${table(rows)}\n\nMachine: ${where}\n`);
const resultsFile = join(ctx.build, 'bench-results.json');
writeFileSync(resultsFile, JSON.stringify({ machine: where, date: new Date().toISOString(), rows }, null, 2) + '\n');
process.stderr.write(`bench: results in ${resultsFile}\n`);
process.exit(failures.length || (strict && rows.some((r) => !r.met)) ? 1 : 0);
