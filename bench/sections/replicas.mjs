// Replicas (DESIGN.md §9): what running three `abcictl serve` on one
// PostgreSQL 15 database behind haproxy costs in mint throughput, and how
// long minting stops when the replica sending for the chain dies.
//   - throughput: the same N concurrent mint-role-token requests (each with
//     its own Idempotency-Key, re-sent on a 5xx or a broken connection until
//     answered 200, as a client behind a load balancer must), each contender
//     on its own fresh anvil with 1-second blocks, started right after a
//     block: one server on SQLite against three replicas on PostgreSQL behind
//     haproxy (examples/haproxy-replicas.cfg on the run's ports); once with
//     anvil's default block gas limit (this machine is the limit), once with
//     mainnet's gas per second in each block (the chain is the limit);
//   - failover: a steady load through haproxy (one mint every 25 ms, each
//     retried until answered) while the lane's owner is killed with SIGKILL
//     KILLS times, each time restarted on its port; the time from the kill to
//     the first 200 naming a transaction sent after it (its nonce not yet used
//     at the kill), and to the lane owned again by health.
// PostgreSQL and haproxy are Debian's (scripts/setup), started here: the
// cluster in a temporary directory, as `nobody` through setpriv when run as
// root (initdb refuses root). fsync stays on, as a deployment's would.
// Every mint is checked on chain: contiguous nonces, each wallet holds one.

import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, openSync, writeFileSync, readFileSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { join } from 'node:path';
import { Interface } from 'ethers';
import { nextBlock, rpc } from '../lib.mjs';
import { run as runTool, progress } from './common.mjs';

const N = Number(process.env.ABCICTL_BENCH_REPLICA_MINTS || 1000);
const KILLS = Number(process.env.ABCICTL_BENCH_KILLS || 10);
const LOAD_EVERY_MS = 25;
const BLOCK_TIME = 1;
// The chain-paced run's block gas limit: Ethereum mainnet's gas per second
// (36M gas every 12 s), in 1 s blocks. A chain of that pace, not this
// machine's two cores, is then what limits both contenders, as it would in
// production (mainnet's pace is about 30 role mints a second).
const PACED_GAS_LIMIT = 3_000_000;
const ROLE_TOKEN = 10000; // producer
const PG_BIN = '/usr/lib/postgresql/15/bin';
const HAPROXY = '/usr/sbin/haproxy';
const NOBODY = 65534;
const say = (message) => progress('replicas', message);

// PostgreSQL 15 in a temporary directory on a free port; stopped (immediate) on
// exit. `settings` are more `-c name=value` server settings. Returns
// {port, cluster, database()}.
export async function startPostgres(lib, settings = []) {
  const dir = lib.tempDir('abcictl-bench-pg-');
  const cluster = join(dir, 'cluster');
  const root = process.getuid() === 0;
  const asOwner = (argv) => (root ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', ...argv] : argv);
  if (root) {
    // The owner must reach its cluster: the directory above opens for traversal only.
    chmodSync(dir, 0o711);
    mkdirSync(cluster);
    chownSync(cluster, NOBODY, NOBODY);
  }
  await runTool(asOwner([`${PG_BIN}/initdb`, '-D', cluster, '-U', 'abci', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']));
  const port = await lib.freePort();
  const options = [`-p ${port} -c listen_addresses=127.0.0.1 -k ${cluster}`, ...settings.map((c) => `-c ${c}`)].join(' ');
  await runTool(asOwner([`${PG_BIN}/pg_ctl`, 'start', '-D', cluster, '-l', join(cluster, 'log'), '-w', '-t', '30', '-o', options]));
  const stop = asOwner([`${PG_BIN}/pg_ctl`, 'stop', '-D', cluster, '-m', 'immediate', '-w']);
  lib.cleanupOnExit(() => execFileSync(stop[0], stop.slice(1), { stdio: 'ignore' }));
  let databases = 0;
  return {
    port,
    cluster,
    // A fresh empty database; its URL.
    async database() {
      const name = `bench${++databases}`;
      await runTool(['psql', '-X', '-q', '-d', `postgresql://abci@127.0.0.1:${port}/postgres`, '-c', `CREATE DATABASE ${name}`]);
      return `postgresql://abci@127.0.0.1:${port}/${name}`;
    },
  };
}

// examples/haproxy-replicas.cfg, read now, on this run's ports: its frontend
// on `port`, its two servers replaced by `replicas`, health checks kept. What
// is measured is the config the README deploys; an example this cannot adapt
// any more throws rather than being benchmarked as something else.
function haproxyConfig(lib, port, replicas) {
  const example = join(lib.root, 'examples', 'haproxy-replicas.cfg');
  const servers = replicas.map((r) => `    server replica-${r.port} 127.0.0.1:${r.port} check`);
  // The example's lines (indentation aside), each to be found once, and the lines each becomes.
  const replacements = new Map([
    ['bind 127.0.0.1:8080', [`    bind 127.0.0.1:${port}`]],
    ['server replica-8081 127.0.0.1:8081 check', servers],
    ['server replica-8082 127.0.0.1:8082 check', []],
  ]);
  const found = new Map();
  const config = readFileSync(example, 'utf8').split('\n').flatMap((line) => {
    const replacement = replacements.get(line.trim());
    if (!replacement) return [line];
    found.set(line.trim(), (found.get(line.trim()) ?? 0) + 1);
    return replacement;
  });
  for (const line of replacements.keys()) {
    const times = found.get(line) ?? 0;
    if (times !== 1) throw new Error(`${example} has the line "${line}" ${times} times, not once: cannot set the bench's ports in it`);
  }
  return config.join('\n');
}

// haproxy in front of `replicas` (haproxyConfig); stopped on exit.
async function startHaproxy(lib, replicas) {
  const dir = lib.tempDir('abcictl-bench-haproxy-');
  const port = await lib.freePort();
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(lib, port, replicas));
  await runTool([HAPROXY, '-c', '-q', '-f', config]);
  const log = openSync(join(dir, 'haproxy.log'), 'a');
  const child = spawn(HAPROXY, ['-db', '-f', config], { stdio: ['ignore', log, log] });
  lib.cleanupOnExit(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  await lib.waitForPort(port, 10000, child);
  const url = `http://127.0.0.1:${port}`;
  // Until a replica is in service: haproxy answers 503 itself before.
  for (const deadline = Date.now() + 20000; ; await lib.sleep(100)) {
    if ((await fetch(`${url}/readyz`).catch(() => ({ status: 0 }))).status === 200) break;
    if (Date.now() > deadline) throw new Error(`haproxy serves no replica; its log:\n${readFileSync(join(dir, 'haproxy.log'), 'utf8')}`);
  }
  return {
    url,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    }),
  };
}

function post(agent, url, path, token, body, key) {
  return new Promise((resolve) => {
    const payload = JSON.stringify(body);
    const req = httpRequest(
      `${url}${path}`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json', authorization: `Bearer ${token}`,
          'content-length': Buffer.byteLength(payload), 'idempotency-key': key,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode, text }));
        // A connection broken in the middle of the answer (a replica killed):
        // no 'end', and no error on the request either.
        res.on('close', () => res.complete || resolve({ status: 0, text: 'connection closed mid-answer' }));
      },
    );
    req.on('error', (e) => resolve({ status: 0, text: e.message }));
    // Longer than haproxy's `timeout server`: a request nothing answers is not waited on forever.
    req.setTimeout(160000, () => req.destroy(new Error('no answer in 160 s')));
    req.end(payload);
  });
}

// One mint, re-sent with its key after 100 ms while unanswered, 409 (the first
// attempt still running) or 5xx; resolves {status, data, at, attempts}.
async function mintUntilAnswered(agent, url, token, to, key) {
  const body = { userAddress: to, roleType: 'producer', blockchainId: 'devnet' };
  for (let attempts = 1; ; ++attempts) {
    const r = await post(agent, url, '/abci/contracts/mint-role-token', token, body, key);
    if (r.status === 200) return { status: 200, data: JSON.parse(r.text).data, at: performance.now(), attempts };
    if (!(r.status === 0 || r.status === 409 || r.status >= 500) || attempts >= 600)
      return { status: r.status, text: r.text, at: performance.now(), attempts };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function loginAdmin(lib, url) {
  const r = await fetch(`${url}/api/auth/login-email-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: lib.adminEmail, password: lib.adminPassword }),
  });
  if (r.status !== 200) throw new Error(`admin login: ${r.status} ${await r.text()}`);
  return (await r.json()).token;
}

// What the chain says of `answers` (200s) minted to `recipients` from
// nonce `firstNonce`: the problems found (none: each wallet holds one token,
// the signer's nonces since `firstNonce` are all these mints, nothing pending).
async function verify(lib, url, contract, { answers, recipients, firstNonce }) {
  const problems = [];
  const hashes = [...new Set(answers.map((a) => a.data.transactionHash))];
  if (hashes.length !== answers.length) problems.push('two mints answered with the same transaction');
  const now = Number(await rpc(url, 'eth_getTransactionCount', [lib.devAddresses[0], 'latest']));
  const pending = Number(await rpc(url, 'eth_getTransactionCount', [lib.devAddresses[0], 'pending']));
  if (now - firstNonce !== recipients.length) problems.push(`the signer sent ${now - firstNonce} transactions for ${recipients.length} mints`);
  if (pending !== now) problems.push(`${pending - now} transactions still pending`);
  const abi = new Interface(['function balanceOfBatch(address[] accounts, uint256[] ids) view returns (uint256[])']);
  for (let i = 0; i < recipients.length; i += 500) {
    const slice = recipients.slice(i, i + 500);
    const data = abi.encodeFunctionData('balanceOfBatch', [slice, slice.map(() => ROLE_TOKEN)]);
    const [balances] = abi.decodeFunctionResult('balanceOfBatch', await rpc(url, 'eth_call', [{ to: contract, data }, 'latest']));
    const wrong = balances.filter((b) => b !== 1n).length;
    if (wrong) problems.push(`${wrong} wallets do not hold exactly one token`);
  }
  return problems;
}

// N concurrent mints to `url` (a server, or haproxy); the rate from just after a block to the last answer.
async function throughput(lib, { url, anvilUrl, contract, token, recipients, tag }) {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const warm = await mintUntilAnswered(agent, url, token, recipients[N], `${tag}-warm`);
  if (warm.status !== 200) throw new Error(`warm-up mint: ${warm.status} ${warm.text}`);
  const firstNonce = Number(await rpc(anvilUrl, 'eth_getTransactionCount', [lib.devAddresses[0], 'latest']));
  await nextBlock(anvilUrl);
  const start = performance.now();
  const answers = await Promise.all(recipients.slice(0, N).map((to, i) => mintUntilAnswered(agent, url, token, to, `${tag}-${i}`)));
  const end = performance.now();
  agent.destroy();
  const ok = answers.filter((a) => a.status === 200);
  const problems = [];
  if (ok.length !== N) {
    const sample = answers.find((a) => a.status !== 200);
    problems.push(`${N - ok.length} mints not answered 200 (e.g. ${sample.status} ${String(sample.text).slice(0, 200)})`);
  }
  problems.push(...(await verify(lib, anvilUrl, contract, { answers: ok, recipients: recipients.slice(0, N), firstNonce })));
  const retried = answers.reduce((sum, a) => sum + a.attempts - 1, 0);
  return { rate: (N * 1000) / (end - start), seconds: (end - start) / 1000, problems, retried };
}

// Three replicas on database `dbUrl` for the chain, behind haproxy.
async function startReplicas(lib, ctx, { anvilUrl, contract, dbUrl }) {
  const env = { ABCI_DATABASE_URL: dbUrl };
  const replicas = [];
  // One after the other: the first creates the schema (the others would wait on its lock anyway).
  for (let i = 0; i < 3; ++i) replicas.push(await lib.startServe(ctx.abcictl, { anvilUrl, contract, env }));
  const proxy = await startHaproxy(lib, replicas);
  return { env, replicas, proxy };
}

async function lane(replica, token) {
  try {
    const r = await fetch(`${replica.url}/abci/health`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(2000) });
    const check = (await r.json()).checks?.['lane:devnet'];
    return check ? { ownedHere: check.ownedHere === true, epoch: Number(check.epoch ?? 0) } : null;
  } catch {
    return null; // down
  }
}

async function owner(replicas, token) {
  for (let i = 0; i < replicas.length; ++i) {
    const l = await lane(replicas[i], token);
    if (l?.ownedHere) return { index: i, epoch: l.epoch };
  }
  return null;
}

// kill -9 of the lane's owner KILLS times under a steady load through haproxy.
async function failover(lib, ctx, { anvil, contract, dbUrl }) {
  const { env, replicas, proxy } = await startReplicas(lib, ctx, { anvilUrl: anvil.url, contract, dbUrl });
  const token = await loginAdmin(lib, proxy.url);
  const recipients = lib.randomAddresses(Math.ceil(((KILLS * 4000 + 6000) / LOAD_EVERY_MS) * 1.2), 22);
  lib.addWalletUsers(ctx.abcictl, replicas[0].dataDir, recipients, env);
  const firstNonce = Number(await rpc(anvil.url, 'eth_getTransactionCount', [lib.devAddresses[0], 'latest']));
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const mints = [];
  let sending = true;
  const loader = (async () => {
    for (let i = 0; sending && i < recipients.length; ++i) {
      mints.push(mintUntilAnswered(agent, proxy.url, token, recipients[i], `failover-${i}`));
      await lib.sleep(LOAD_EVERY_MS);
    }
  })();
  await lib.sleep(3000);
  const kills = [];
  for (let k = 0; k < KILLS; ++k) {
    const current = await owner(replicas, token);
    if (!current) throw new Error('no replica owns the lane');
    const victim = replicas[current.index];
    victim.child.kill('SIGKILL');
    const at = performance.now();
    const nextNonce = Number(await rpc(anvil.url, 'eth_getTransactionCount', [lib.devAddresses[0], 'pending']));
    let takenMs = NaN;
    for (const deadline = at + 30000; performance.now() < deadline; await lib.sleep(50)) {
      const now = await owner(replicas, token);
      if (now && now.epoch > current.epoch) {
        takenMs = performance.now() - at;
        break;
      }
    }
    kills.push({ at, nextNonce, takenMs });
    say(`kill -9 ${k + 1}/${KILLS} of the owner (epoch ${current.epoch}): lane owned again after ${Math.round(takenMs)} ms`);
    await new Promise((resolve) => (victim.child.exitCode !== null || victim.child.signalCode !== null ? resolve() : victim.child.once('exit', resolve)));
    replicas[current.index] = await lib.startServe(ctx.abcictl, { anvilUrl: anvil.url, contract, env, dir: victim.dir, port: victim.port });
    await lib.sleep(2000 + Math.random() * 1000);
  }
  sending = false;
  await loader;
  const answers = await Promise.all(mints);
  say(`failover: all ${answers.length} mints of the load settled`);
  agent.destroy();
  await proxy.stop();
  for (const r of replicas) await r.stop();
  const ok = answers.filter((a) => a.status === 200);
  const problems = [];
  if (ok.length !== answers.length) problems.push(`${answers.length - ok.length} mints not answered 200`);
  // Everything answered is mined: the chain holds exactly the mints sent so far.
  problems.push(...(await verify(lib, anvil.url, contract, { answers: ok, recipients: recipients.slice(0, answers.length), firstNonce })));
  // The nonce of each answered transaction, to tell mints sent after a kill from those sent before.
  const byTime = [...ok].sort((a, b) => a.at - b.at);
  const nonces = new Map();
  const nonceOf = async (hash) => {
    if (!nonces.has(hash)) nonces.set(hash, Number((await rpc(anvil.url, 'eth_getTransactionByHash', [hash])).nonce));
    return nonces.get(hash);
  };
  const firstMint = [];
  for (const kill of kills) {
    for (const a of byTime) {
      if (a.at <= kill.at) continue;
      if ((await nonceOf(a.data.transactionHash)) >= kill.nextNonce) {
        firstMint.push(a.at - kill.at);
        break;
      }
    }
  }
  return { firstMint, taken: kills.map((k) => k.takenMs), mints: answers.length, problems };
}

// One server on SQLite, then three replicas on PostgreSQL behind haproxy, each
// on a fresh anvil of 1 s blocks, `gasLimit` gas each (null: anvil's default,
// far more than this machine can fill).
async function throughputPair(lib, ctx, pg, gasLimit) {
  const chain = gasLimit === null ? '1 s blocks' : `1 s blocks of ${gasLimit / 1e6}M gas`;
  const startAnvil = () => lib.startAnvil({ blockTime: BLOCK_TIME, gasLimit });
  say(`one server on SQLite (${N} concurrent mints, ${chain})`);
  const single = await (async () => {
    const anvil = await startAnvil();
    const contract = await lib.deployContract(anvil.url);
    const serve = await lib.startServe(ctx.abcictl, { anvilUrl: anvil.url, contract });
    const recipients = lib.randomAddresses(N + 1, 20);
    lib.addWalletUsers(ctx.abcictl, serve.dataDir, recipients);
    const token = await loginAdmin(lib, serve.url);
    const r = await throughput(lib, { url: serve.url, anvilUrl: anvil.url, contract, token, recipients, tag: 'sqlite' });
    await serve.stop();
    await anvil.stop();
    return r;
  })();
  say(`one server on SQLite: ${Math.round(single.rate)} mints/s (${single.seconds.toFixed(2)} s)`);

  say(`three replicas on PostgreSQL behind haproxy (${N} concurrent mints, ${chain})`);
  const three = await (async () => {
    const anvil = await startAnvil();
    const contract = await lib.deployContract(anvil.url);
    const { env, replicas, proxy } = await startReplicas(lib, ctx, { anvilUrl: anvil.url, contract, dbUrl: await pg.database() });
    const recipients = lib.randomAddresses(N + 1, 21);
    lib.addWalletUsers(ctx.abcictl, replicas[0].dataDir, recipients, env);
    const token = await loginAdmin(lib, proxy.url);
    const r = await throughput(lib, { url: proxy.url, anvilUrl: anvil.url, contract, token, recipients, tag: 'replicas' });
    await proxy.stop();
    for (const replica of replicas) await replica.stop();
    await anvil.stop();
    return r;
  })();
  say(`three replicas: ${Math.round(three.rate)} mints/s (${three.seconds.toFixed(2)} s, ${three.retried} requests re-sent)`);
  return { single, three, chain };
}

const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

export default async function run(ctx) {
  const lib = ctx.lib;
  const pg = await startPostgres(lib);

  const fast = await throughputPair(lib, ctx, pg, null);
  const paced = await throughputPair(lib, ctx, pg, PACED_GAS_LIMIT);

  say(`failover: ${KILLS} kill -9 of the lane owner under a steady load (a mint every ${LOAD_EVERY_MS} ms)`);
  const fo = await (async () => {
    const anvil = await lib.startAnvil({ blockTime: BLOCK_TIME });
    const contract = await lib.deployContract(anvil.url);
    try {
      return await failover(lib, ctx, { anvil, contract, dbUrl: await pg.database() });
    } finally {
      await anvil.stop();
    }
  })();
  const p50 = lib.percentile(fo.firstMint, 50);
  const p99 = lib.percentile(fo.firstMint, 99);
  const t50 = lib.percentile(fo.taken.filter(Number.isFinite), 50);
  const t99 = lib.percentile(fo.taken.filter(Number.isFinite), 99);
  say(`failover: first new mint answered ${fo.firstMint.map((v) => Math.round(v)).join(', ')} ms; lane owned again ${fo.taken.map((v) => Math.round(v)).join(', ')} ms`);

  const describe = (r) => `${Math.round(r.rate)} mints/s (${r.seconds.toFixed(2)} s${r.retried ? `, ${r.retried} re-sent` : ''})${r.problems.length ? ' ✘ ' + r.problems.join('; ') : ''}`;
  const row = ({ single, three, chain }) => ({
    measurement: `mint throughput: ${N} concurrent mints, 3 replicas on PostgreSQL behind haproxy vs 1 server on SQLite, ${chain}`,
    ours: `3 replicas: ${describe(three)}`, peer: `1 server, SQLite: ${describe(single)}`,
    ratio: three.rate / single.rate, target: '≥ 0.9×, 0 failures',
    met: three.rate / single.rate >= 0.9 && three.problems.length === 0 && single.problems.length === 0,
    raw: { three, single },
  });
  return [
    row(fast),
    row(paced),
    {
      measurement: `failover under load: kill -9 of the lane owner ×${fo.firstMint.length}, to the first 200 naming a transaction sent after the kill`,
      ours: `p50 ${s(p50)}, p99 ${s(p99)}${fo.problems.length ? ' ✘ ' + fo.problems.join('; ') : ''}`,
      peer: `lane owned again (health): p50 ${s(t50)}, p99 ${s(t99)}; ${fo.mints} mints`,
      ratio: NaN, target: 'p99 < 3 s, 0 failures',
      met: fo.firstMint.length === KILLS && p99 < 3000 && fo.problems.length === 0,
      raw: fo,
    },
  ];
}
