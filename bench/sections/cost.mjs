// cost: what one mint costs the server and its database, the figures
// docs/scaling.md's model is built from (issue 38 item 6). The same stream of
// keyed entity mints (ABCICTL_BENCH_COST_MINTS, 1000, at 200 a second, open
// loop; anvil with 1 s blocks, far from its ceiling) through one server on
// SQLite, then through one on PostgreSQL 15 (fsync on). Measured across the
// stream, after a warm-up of 20 mints:
//   - CPU time per mint of the server (/proc/PID/stat), and of PostgreSQL
//     (its postmaster and every backend);
//   - store transactions per mint (the server's own histogram), and on
//     PostgreSQL statements per mint (pg_stat_statements, BEGIN and COMMIT
//     included), commits and WAL bytes per mint;
//   - bytes per mint of each table that grew, indexes included (SQLite's
//     dbstat pages, PostgreSQL's pg_total_relation_size): the journal's and the
//     audit log's among them.

import { Agent } from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import * as lib from '../lib.mjs';
import { progress, run } from './common.mjs';
import { post } from './mint.mjs';
import { startPostgres } from './replicas.mjs';
import { entityBody, openLoop } from './sustained.mjs';

const N = Number(process.env.ABCICTL_BENCH_COST_MINTS || 1000);
const RATE = 200;
const WARM = 20;
const say = (message) => progress('cost', `${message} (load ${loadavg()[0].toFixed(2)})`);

const kTicks = 100; // USER_HZ: /proc's clock ticks a second on Linux
/** CPU seconds (user + system) the process `pid` has used. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / kTicks;
}
/** CPU seconds of the process `parent` and its live children. */
function treeCpuSeconds(parent) {
  let total = cpuSeconds(parent);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.split(') ')[1].split(' ')[1]) === parent) total += cpuSeconds(Number(entry));
    } catch {
      // gone since readdir
    }
  }
  return total;
}

/** The server's store transactions so far: the count of its duration histogram. */
async function storeTransactions(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  return [...text.matchAll(/^abcictl_store_transaction_duration_seconds_count\{[^}]*\} (\S+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

const psql = async (url, sql) => (await run(['psql', '-X', '-q', '-At', '-F', '\t', '-d', url, '-c', sql])).stdout.trim();

/** Bytes of each table of the SQLite database at `file`, its indexes counted with it. */
async function sqliteSizes(file) {
  const out = (await run(['sqlite3', file,
    "SELECT m.tbl_name, SUM(s.pgsize) FROM dbstat s JOIN sqlite_master m ON m.name = s.name GROUP BY m.tbl_name"])).stdout;
  return Object.fromEntries(out.trim().split('\n').map((l) => l.split('|')).map(([t, b]) => [t, Number(b)]));
}
async function pgSizes(url) {
  const out = await psql(url, 'SELECT relname, pg_total_relation_size(relid) FROM pg_stat_user_tables');
  return Object.fromEntries(out.split('\n').map((l) => l.split('\t')).map(([t, b]) => [t, Number(b)]));
}

async function snapshot(target) {
  const snap = { server: cpuSeconds(target.serve.pid), transactions: await storeTransactions(target.metricsUrl) };
  if (target.pg) {
    snap.database = treeCpuSeconds(target.pg.postmaster);
    const [statements, commits, wal] = (await psql(target.pg.admin,
      `SELECT (SELECT sum(calls) FROM pg_stat_statements WHERE dbid = d.datid), d.xact_commit, pg_current_wal_lsn() - '0/0'::pg_lsn
         FROM pg_stat_database d WHERE d.datname = '${target.pg.name}'`)).split('\t').map(Number);
    Object.assign(snap, { statements, commits, wal, sizes: await pgSizes(target.pg.url) });
  } else {
    snap.sizes = await sqliteSizes(join(target.serve.dataDir, 'abci.db'));
  }
  return snap;
}

// One backend: a fresh chain and server, the stream, the differences per mint.
async function measure(ctx, pg) {
  const anvil = await lib.startAnvil({ blockTime: 1 });
  const metricsPort = await lib.freePort();
  let serve = null;
  try {
    const contract = await lib.deployContract(anvil.url);
    const env = {};
    let target;
    if (pg) {
      const url = await pg.database();
      env.ABCI_DATABASE_URL = url;
      const name = url.slice(url.lastIndexOf('/') + 1);
      const admin = `postgresql://abci@127.0.0.1:${pg.port}/postgres`;
      await psql(admin, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      const postmaster = Number(readFileSync(join(pg.cluster, 'postmaster.pid'), 'utf8').split('\n')[0]);
      target = { pg: { url, name, admin, postmaster } };
    }
    serve = await lib.startServe(ctx.abcictl, {
      anvilUrl: anvil.url, contract, env, extraToml: `[metrics]\nlisten = "127.0.0.1:${metricsPort}"\n`,
    });
    target = { ...target, serve, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
    const jwt = await lib.loginAdmin(serve);
    const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
    const recipients = lib.randomAddresses(N + WARM, pg ? 4102 : 4101);
    const mint = async (i) => {
      const body = entityBody(recipients[i], `C-${i}`);
      const r = await post(agent, serve.url, '/abci/contracts/mint-entity-token', jwt, body);
      return { status: r.status, ok: r.status === 200 };
    };
    const warm = await openLoop(RATE, WARM, (i) => mint(N + i));
    if (warm.some((r) => !r.ok)) throw new Error(`warm-up mints: statuses ${warm.map((r) => r.status).join(' ')}`);
    // The warm-up's audit rows are committed in batches of their own, and
    // PostgreSQL publishes a backend's statistics about once a second.
    await lib.sleep(1500);
    const before = await snapshot(target);
    const results = await openLoop(RATE, N, mint);
    await lib.sleep(1500);
    const after = await snapshot(target);
    agent.destroy();
    const failed = results.filter((r) => !r.ok).length;
    if (failed) throw new Error(`${failed} of ${N} mints failed`);
    const per = (k) => (after[k] - before[k]) / N;
    const sizes = {};
    for (const [table, bytes] of Object.entries(after.sizes)) {
      const grew = (bytes - (before.sizes[table] ?? 0)) / N;
      if (grew > 0) sizes[table] = grew;
    }
    const out = { serverMs: per('server') * 1000, transactions: per('transactions'), sizes };
    if (pg) Object.assign(out, { databaseMs: per('database') * 1000, statements: per('statements'), commits: per('commits'), wal: per('wal') });
    return out;
  } finally {
    if (serve) await serve.stop();
    await anvil.stop();
  }
}

const bytesText = (sizes) =>
  Object.entries(sizes).sort((a, b) => b[1] - a[1]).map(([t, b]) => `${t} ${Math.round(b)}`).join(', ') +
  `; total ${Math.round(Object.values(sizes).reduce((a, b) => a + b, 0))} B`;

export default async function cost(ctx) {
  say(`SQLite: ${N} keyed entity mints at ${RATE}/s`);
  const sqlite = await measure(ctx, null);
  const pg = await startPostgres(ctx.lib, ['shared_preload_libraries=pg_stat_statements']);
  say(`PostgreSQL: ${N} keyed entity mints at ${RATE}/s`);
  const postgres = await measure(ctx, pg);
  for (const [name, r] of [['SQLite', sqlite], ['PostgreSQL', postgres]]) say(`${name}: ${JSON.stringify(r)}`);
  const ms = (v) => `${v.toFixed(2)} ms`;
  return [
    {
      measurement: `cost of a mint: server CPU per mint at ${RATE} mints/s, one server on PostgreSQL vs on SQLite`,
      ours: `PostgreSQL: ${ms(postgres.serverMs)} (and PostgreSQL's own ${ms(postgres.databaseMs)}), ${postgres.transactions.toFixed(1)} store transactions`,
      peer: `SQLite: ${ms(sqlite.serverMs)}, ${sqlite.transactions.toFixed(1)} store transactions`,
      ratio: (postgres.serverMs + postgres.databaseMs) / sqlite.serverMs, target: 'measured (docs/scaling.md)', met: true,
      raw: { sqlite, postgres },
    },
    {
      measurement: 'cost of a mint: PostgreSQL statements, commits and WAL per mint',
      ours: `${postgres.statements.toFixed(1)} statements, ${postgres.commits.toFixed(1)} commits, ${Math.round(postgres.wal)} B of WAL`,
      peer: '', ratio: NaN, target: 'measured (docs/scaling.md)', met: true,
    },
    {
      measurement: 'cost of a mint: bytes stored per mint, by table with its indexes',
      ours: `PostgreSQL: ${bytesText(postgres.sizes)}`, peer: `SQLite: ${bytesText(sqlite.sizes)}`,
      ratio: NaN, target: 'measured (docs/scaling.md)', met: true,
    },
  ];
}
