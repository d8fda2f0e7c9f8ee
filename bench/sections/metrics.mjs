// metrics: what the metrics listener costs (issue 32). The same work with
// `[metrics] listen` off and on, a scraper fetching /metrics every second
// while it is on.
//   - a mint burst: N concurrent mint-role-token requests, a fresh chain and
//     server per round (the mint section's), on anvil mining each transaction
//     as it comes, in ROUNDS pairs (6), each pair's order the opposite of the
//     last. With 1-second blocks a burst's rate is two-valued, as it fits in
//     two blocks or needs three, which hid any cost of ours (pair ratios 0.78
//     or 1.27 with the same server CPU a mint); mined as they come, the rate
//     is what the server's own work allows;
//   - the read route: wrk (1 thread, 32 connections) on GET
//     /abci/tokens/user-balance, two servers (off and on) over one anvil, in
//     READ_PAIRS pairs (16) of short runs, alternating likewise.
// Each ratio is the median of the pairs' on/off ratios (target ≥ 0.98×). A
// pair runs within seconds, so the machine's drift (another process, the
// CPU's clock) falls on both of its runs alike. Medians of each side's
// rounds could not tell 2 % from this machine's spread: the read route's
// rounds spread ±15 % (0.89× from an idle machine, where a profile of the
// server under the same load finds the metrics code at 0.05 % of its
// samples). Every run also reads
// the server's CPU time (/proc/<pid>/stat), printed per request and per
// mint: what the work costs the server, whatever else the machine did.
// And the command line's start-up: prometheus-cpp is linked into
// libabcictl-prometheus.so alone, which only `serve` loads (with its listener
// on), so a command maps none of it: the dynamic loader's list of the files
// `abcictl version` and `abcictl health` open (LD_DEBUG=files) is read and
// every prometheus file in it counted (target: none).

import { loadavg } from 'node:os';
import * as lib from '../lib.mjs';
import { ours as mintBurst } from './mint.mjs';
import { wrk } from './read.mjs';
import { cpuMillis, num, progress, run } from './common.mjs';

const N = Number(process.env.ABCICTL_BENCH_METRICS_MINTS || 1000);
const READ_SECONDS = Number(process.env.ABCICTL_BENCH_METRICS_READ_SECONDS || 4);
const READ_PAIRS = Number(process.env.ABCICTL_BENCH_METRICS_READ_PAIRS || 16);
const ROUNDS = Number(process.env.ABCICTL_BENCH_METRICS_ROUNDS || 6);
const kTarget = 0.98;
// Pairs in alternating order (off on, on off, …): ROUNDS of each side.
const kModes = Array.from({ length: ROUNDS }, (_, i) => (i % 2 ? ['on', 'off'] : ['off', 'on'])).flat();
const pairOf = (i) => Math.floor(i / 2);

// Fetches `url` every second until stop() (a refused fetch is retried the next second: the server may not be up yet).
function scraper(url) {
  let scrapes = 0;
  let failures = 0;
  const timer = setInterval(async () => {
    try {
      const r = await fetch(url);
      await r.text();
      if (r.status === 200) ++scrapes;
      else ++failures;
    } catch {
      ++failures;
    }
  }, 1000);
  return { stop: () => (clearInterval(timer), { scrapes, failures }) };
}

const metricsToml = (port) => `[metrics]\nlisten = "127.0.0.1:${port}"\n`;

async function mints(ctx) {
  const runs = [];
  for (const [i, mode] of kModes.entries()) {
    progress('metrics', `mint burst ${i + 1}/${kModes.length}: ${N} mints, metrics ${mode}`);
    const port = await lib.freePort();
    const scrape = mode === 'on' ? scraper(`http://127.0.0.1:${port}/metrics`) : null;
    const r = await mintBurst(lib, ctx, N, { seed: 40 + i, blockTime: null, extraToml: mode === 'on' ? metricsToml(port) : '' });
    const scraped = scrape?.stop();
    if (r.failures || r.problems.length) throw new Error(`mint burst (metrics ${mode}): ${r.failures} failures; ${r.problems.join('; ')}`);
    if (scraped && !scraped.scrapes) throw new Error('mint burst: the scraper got no answer from the metrics listener');
    runs.push({ pair: pairOf(i), mode, rate: r.rate, cpuPerMint: r.serverCpuMs / N, blocks: r.blocks, scraped, load: loadavg()[0] });
    progress('metrics', `mint burst ${i + 1}/${kModes.length}: metrics ${mode}, ${num(r.rate)} mints/s (load ${loadavg()[0].toFixed(2)})`);
  }
  return runs;
}

async function reads(ctx) {
  const anvil = await lib.startAnvil();
  const servers = [];
  try {
    const contract = await lib.deployContract(anvil.url);
    const port = await lib.freePort();
    for (const mode of ['off', 'on'])
      servers.push(await lib.startServe(ctx.abcictl, { anvilUrl: anvil.url, contract, extraToml: mode === 'on' ? metricsToml(port) : '' }));
    const [wallet] = lib.randomAddresses(1, 6202);
    for (const serve of servers) lib.addWalletUsers(ctx.abcictl, serve.dataDir, [wallet]);
    const jwts = await Promise.all(servers.map((serve) => lib.loginAdmin(serve)));
    // Minted through the first server only: both sign with anvil's key 0, and each keeps its own nonces.
    const minted = await fetch(`${servers[0].url}/abci/contracts/mint-role-token`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwts[0]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userAddress: wallet, roleType: 'producer', blockchainId: 'devnet' }),
    });
    if (minted.status !== 200) throw new Error(`minting the role token: ${minted.status} ${await minted.text()}`);
    const path = `/abci/tokens/user-balance?userAddress=${wallet}&blockchainId=devnet`;
    const scrape = scraper(`http://127.0.0.1:${port}/metrics`);
    const runs = [];
    let scraped;
    try {
      for (let pair = 0; pair < READ_PAIRS; ++pair) {
        for (const mode of pair % 2 ? ['on', 'off'] : ['off', 'on']) {
          const which = mode === 'off' ? 0 : 1;
          const load = { headers: [`Authorization: Bearer ${jwts[which]}`] };
          const url = `${servers[which].url}${path}`;
          await wrk(ctx, url, { ...load, seconds: 1 });
          const cpuBefore = cpuMillis(servers[which].pid);
          const { rps } = await wrk(ctx, url, { ...load, seconds: READ_SECONDS });
          const cpuPerRequest = ((cpuMillis(servers[which].pid) - cpuBefore) * 1000) / (rps * READ_SECONDS);
          runs.push({ pair, mode, rps, cpuPerRequest, load: loadavg()[0] });
        }
        const [a, b] = runs.slice(-2);
        progress('metrics', `read route pair ${pair + 1}/${READ_PAIRS}: ${a.mode} ${num(a.rps)}, ${b.mode} ${num(b.rps)} req/s (load ${loadavg()[0].toFixed(2)})`);
      }
    } finally {
      scraped = scrape.stop();
    }
    if (!scraped.scrapes) throw new Error('read route: the scraper got no answer from the metrics listener');
    return { runs, scraped };
  } finally {
    for (const serve of servers) await serve.stop();
    await anvil.stop();
  }
}

// The on/off ratio of `key` in each pair of runs.
function pairRatios(runs, key) {
  const ratios = [];
  for (let pair = 0; runs.some((r) => r.pair === pair); ++pair) {
    const of = (mode) => runs.find((r) => r.pair === pair && r.mode === mode)[key];
    ratios.push(of('on') / of('off'));
  }
  return ratios;
}

// The prometheus files each command's loader opened, by command.
async function startup(ctx) {
  progress('metrics', 'start-up: the files abcictl version and abcictl health map');
  const commands = [['version'], ['health', '--server', 'http://127.0.0.1:9']];
  const mapped = {};
  for (const argv of commands) {
    // health exits non-zero on a port that answers nothing: its start-up is what is read.
    const { stderr } = await run([ctx.abcictl, ...argv], { env: { LD_DEBUG: 'files' }, allowFailure: true });
    const files = new Set([...stderr.matchAll(/file=(\S+)/g)].map((m) => m[1]));
    mapped[argv[0]] = [...files].filter((f) => /prometheus/.test(f));
  }
  return mapped;
}

// Of an even count, the mean of the two middle values: lib.median takes the lower one, which moves a
// 6-round median by a whole round's noise.
function middle(numbers) {
  const values = [...numbers].sort((a, b) => a - b);
  const half = values.length >> 1;
  return values.length % 2 ? values[half] : (values[half - 1] + values[half]) / 2;
}
const median = (runs, mode, key) => middle(runs.filter((r) => r.mode === mode).map((r) => r[key]));
const list = (runs, mode, key) => runs.filter((r) => r.mode === mode).map((r) => num(r[key])).join(', ');

export default async function metrics(ctx) {
  const mintRuns = await mints(ctx);
  const { runs: readRuns, scraped } = await reads(ctx);
  const mapped = await startup(ctx);
  const mintRatios = pairRatios(mintRuns, 'rate');
  const mintRatio = middle(mintRatios);
  const mintCpuRatio = middle(pairRatios(mintRuns, 'cpuPerMint'));
  const readRatios = pairRatios(readRuns, 'rps');
  const readRatio = middle(readRatios);
  const cpuRatio = middle(pairRatios(readRuns, 'cpuPerRequest'));
  const prometheusFiles = Object.values(mapped).flat();
  return [
    {
      measurement: `metrics overhead: ${N} concurrent mints mined as they come, listener on and scraped every 1 s vs off (median of ${ROUNDS} interleaved pairs' ratios)`,
      ours: `on: ${list(mintRuns, 'on', 'rate')} mints/s, ${median(mintRuns, 'on', 'cpuPerMint').toFixed(2)} ms server CPU a mint`,
      peer: `off: ${list(mintRuns, 'off', 'rate')} mints/s, ${median(mintRuns, 'off', 'cpuPerMint').toFixed(2)} ms; pair ratios ${mintRatios.map((r) => r.toFixed(2)).join(', ')}; CPU a mint on/off ${mintCpuRatio.toFixed(3)}×`,
      ratio: mintRatio,
      target: `≥ ${kTarget}×`,
      met: mintRatio >= kTarget,
      raw: { runs: mintRuns, cpuRatio: mintCpuRatio },
    },
    {
      measurement: `metrics overhead: read route, wrk -c32, listener on and scraped every 1 s vs off (median of ${READ_PAIRS} interleaved pairs' ratios)`,
      ours: `on: median ${num(median(readRuns, 'on', 'rps'))} req/s, ${median(readRuns, 'on', 'cpuPerRequest').toFixed(1)} µs server CPU a request`,
      peer: `off: median ${num(median(readRuns, 'off', 'rps'))} req/s, ${median(readRuns, 'off', 'cpuPerRequest').toFixed(1)} µs; pair ratios ${readRatios.map((r) => r.toFixed(2)).join(', ')}; CPU a request on/off ${cpuRatio.toFixed(3)}×`,
      ratio: readRatio,
      target: `≥ ${kTarget}×`,
      met: readRatio >= kTarget,
      raw: { runs: readRuns, scraped, cpuRatio },
    },
    {
      measurement: 'metrics overhead: start-up, prometheus-cpp files mapped by abcictl version and health (only serve loads them)',
      ours: prometheusFiles.length ? prometheusFiles.join(', ') : 'none',
      peer: 'none',
      ratio: prometheusFiles.length,
      target: 'none mapped',
      met: prometheusFiles.length === 0,
      raw: mapped,
    },
  ];
}
