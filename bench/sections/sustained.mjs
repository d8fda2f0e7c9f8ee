// sustained: a steady stream of mints instead of one burst (issue 38 item 3).
// Open loop: every arrival time is fixed before the run starts (i / rate
// seconds after the start), and each request's latency is counted from its
// arrival time, not from when the load generator got round to it, so a slow
// server cannot slow the load down or hide its own delay.
//
//   1. The chain's ceiling for this mint: anvil's block gas limit over the
//      gas limit of one entity mint, per 1 s block. The stream's rate is 300
//      mints/s, or less when 0.6× that ceiling is less (printed with how it
//      was chosen; ABCICTL_BENCH_SUSTAINED_RATE sets it).
//   2. The reference line: the same stream of pre-signed mints, each its own
//      eth_sendRawTransaction, answered when a new block's receipts hold it.
//   3. abcictl serve: the same stream of POST /abci/contracts/mint-entity-token,
//      each with its own Idempotency-Key, for ABCICTL_BENCH_SUSTAINED_SECONDS
//      (60); then twice the chain's ceiling for ABCICTL_BENCH_OVERLOAD_SECONDS
//      (30) on the same server: what it cannot take must be refused with 503
//      and Retry-After, and nothing it took may be lost: the chain is the
//      oracle (each recipient's balance, the signer's mined nonce), and the
//      server's RSS is read at the start and the end.
// Latency percentiles p50/p99/p99.9 per 10 s window of arrival times.

import { Agent } from 'node:http';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Interface, Wallet, keccak256 } from 'ethers';
import * as lib from '../lib.mjs';
import { progress } from './common.mjs';
import { post, rpcBatch } from './mint.mjs';

const BLOCK_TIME = 1;
const SECONDS = Number(process.env.ABCICTL_BENCH_SUSTAINED_SECONDS || 60);
const OVERLOAD_SECONDS = Number(process.env.ABCICTL_BENCH_OVERLOAD_SECONDS || 30);
const WINDOW_MS = 10_000;
const ENTITY = 'report';
const say = (message) => progress('sustained', `${message} (load ${loadavg()[0].toFixed(2)})`);
const token = new Interface([
  'function mint(address to, uint256 id, uint256 amount, bytes data)',
  'function balanceOfBatch(address[] accounts, uint256[] ids) view returns (uint256[])',
]);

/**
 * Sends `count` requests at `rate` a second from now, request i at i / rate s
 * (the load does not wait for answers). `send(i)` resolves to
 * {ok, status, retryAfter}. Resolves, once every answer is in, to one entry a
 * request: {arrival (ms from the start), latency (ms from its arrival to its
 * answer), status, ok, retryAfter}.
 */
export async function openLoop(rate, count, send) {
  const start = performance.now();
  const out = new Array(count);
  const pending = [];
  for (let i = 0; i < count; ++i) {
    const arrival = (i * 1000) / rate;
    const wait = start + arrival - performance.now();
    if (wait > 1) await lib.sleep(wait);
    pending.push(
      send(i).then((r) => {
        out[i] = { arrival, latency: performance.now() - start - arrival, ...r };
      }),
    );
  }
  await Promise.all(pending);
  return out;
}

/** Per 10 s window of arrivals: offered, accepted and p50/p99/p99.9 of the accepted ones' latency. */
function windows(results) {
  const out = [];
  for (const r of results) {
    const w = Math.floor(r.arrival / WINDOW_MS);
    out[w] ??= { offered: 0, accepted: 0, latencies: [] };
    ++out[w].offered;
    if (r.ok) {
      ++out[w].accepted;
      out[w].latencies.push(r.latency);
    }
  }
  return out.map((w, i) => ({
    from: (i * WINDOW_MS) / 1000, offered: w.offered, accepted: w.accepted,
    p50: lib.percentile(w.latencies, 50), p99: lib.percentile(w.latencies, 99), p999: lib.percentile(w.latencies, 99.9),
  }));
}

const s = (ms) => `${(ms / 1000).toFixed(2)}`;
function windowLines(name, ws) {
  return ws.map((w) => `${name} ${String(w.from).padStart(3)}-${w.from + WINDOW_MS / 1000} s: ${w.accepted}/${w.offered} accepted, p50 ${s(w.p50)} s, p99 ${s(w.p99)} s, p99.9 ${s(w.p999)} s`);
}
const p99s = (ws) => ws.map((w) => s(w.p99)).join(' / ');

/** Watches the node's new blocks (every 10 ms) and resolves each watched hash's promise with its receipt. */
function receiptWatcher(url) {
  const waiting = new Map();
  let stop = false;
  const loop = (async () => {
    let head = Number(await lib.rpc(url, 'eth_blockNumber'));
    while (!stop) {
      await lib.sleep(10);
      const now = Number(await lib.rpc(url, 'eth_blockNumber'));
      for (let n = head + 1; n <= now; ++n) {
        for (const receipt of await lib.rpc(url, 'eth_getBlockReceipts', ['0x' + n.toString(16)])) {
          const resolve = waiting.get(receipt.transactionHash);
          if (resolve) {
            waiting.delete(receipt.transactionHash);
            resolve(receipt);
          }
        }
      }
      head = now;
    }
  })();
  return {
    wait: (hash) => new Promise((resolve) => waiting.set(hash.toLowerCase(), resolve)),
    stop: async () => {
      stop = true;
      await loop;
    },
  };
}

/** How many of `recipients` hold one token `id` on chain (in slices: the call's size). */
export async function holders(url, contract, recipients, id) {
  let held = 0;
  for (let i = 0; i < recipients.length; i += 2000) {
    const slice = recipients.slice(i, i + 2000);
    const data = token.encodeFunctionData('balanceOfBatch', [slice, slice.map(() => id)]);
    const [balances] = token.decodeFunctionResult('balanceOfBatch', await lib.rpc(url, 'eth_call', [{ to: contract, data }, 'latest']));
    held += balances.filter((b) => b === 1n).length;
  }
  return held;
}

/** A mint-entity-token body as a caller sends one: a report of one token with its metadata. */
export function entityBody(to, entityId) {
  return {
    userAddress: to, entityType: ENTITY, entityId, blockchainId: 'devnet', amount: 1,
    metadata: { name: `Emissions report ${entityId}`, description: 'Scope 1 and 2 emissions', attributes: [{ trait_type: 'tonnes', value: 1250 }] },
  };
}

const rssMiB = (pid) => Number(/^VmRSS:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

export default async function sustained(ctx) {
  // abcictl first: its warm-up mint gives the mint's exact call (token id, data) and gas limit.
  const anvil = await lib.startAnvil({ blockTime: BLOCK_TIME });
  const contract = await lib.deployContract(anvil.url);
  const serve = await lib.startServe(ctx.abcictl, { anvilUrl: anvil.url, contract });
  let ours;
  let shape;
  try {
    const jwt = await lib.loginAdmin(serve);
    const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
    const body = (to, i) => entityBody(to, `S-${i}`);
    const [warmTo] = lib.randomAddresses(1, 3801);
    const warm = await post(agent, serve.url, '/abci/contracts/mint-entity-token', jwt, body(warmTo, 'warm'));
    if (warm.status !== 200) throw new Error(`warm-up mint: ${warm.status} ${warm.text}`);
    const tx = await lib.rpc(anvil.url, 'eth_getTransactionByHash', [JSON.parse(warm.text).data.transactionHash]);
    const call = token.decodeFunctionData('mint', tx.input);
    const gasLimit = Number((await lib.rpc(anvil.url, 'eth_getBlockByNumber', ['latest', false])).gasLimit);
    shape = { id: call[1], data: call[3], gas: Number(tx.gas), perBlock: Math.floor(gasLimit / Number(tx.gas)), gasLimit };
    shape.ceiling = shape.perBlock / BLOCK_TIME;
    shape.rate = Number(process.env.ABCICTL_BENCH_SUSTAINED_RATE || Math.min(300, Math.floor((0.6 * shape.ceiling) / 10) * 10));
    shape.why = process.env.ABCICTL_BENCH_SUSTAINED_RATE
      ? 'ABCICTL_BENCH_SUSTAINED_RATE'
      : `min(300, 0.6 × the chain's ceiling of ${shape.ceiling} mints/s: ${shape.gasLimit} gas a ${BLOCK_TIME} s block / ${shape.gas} gas a mint)`;
    say(`rate ${shape.rate} mints/s for ${SECONDS} s: ${shape.why}; then ${2 * shape.ceiling} mints/s (2× the ceiling) for ${OVERLOAD_SECONDS} s`);

    const n = shape.rate * SECONDS;
    const over = 2 * shape.ceiling * OVERLOAD_SECONDS;
    const recipients = lib.randomAddresses(n + over, 3802);
    const firstNonce = Number(await lib.rpc(anvil.url, 'eth_getTransactionCount', [lib.devAddresses[0], 'latest']));
    const send = (offset) => async (i) => {
      const r = await post(agent, serve.url, '/abci/contracts/mint-entity-token', jwt, body(recipients[offset + i], offset + i));
      return { status: r.status, ok: r.status === 200, retryAfter: r.headers?.['retry-after'], error: r.status ? undefined : r.text };
    };
    await lib.nextBlock(anvil.url);
    const rssStart = rssMiB(serve.pid);
    say(`abcictl serve: ${n} keyed entity mints at ${shape.rate}/s`);
    const steady = await openLoop(shape.rate, n, send(0));
    say(`abcictl serve: ${over} at ${2 * shape.ceiling}/s (2× the ceiling)`);
    // A 408 or a reset can be the load generator's own doing: a request
    // written seconds after its connection was accepted. Its event loop's
    // delay during the overload says whether it kept up.
    const lag = monitorEventLoopDelay({ resolution: 20 });
    lag.enable();
    const overload = await openLoop(2 * shape.ceiling, over, send(n));
    lag.disable();
    const loopDelay = { p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 };
    const rssEnd = rssMiB(serve.pid);
    agent.destroy();
    // Answers are in; anything still unsettled in the server would show as a
    // later nonce: wait two blocks before asking the chain.
    await lib.nextBlock(anvil.url);
    await lib.nextBlock(anvil.url);
    const minted = await holders(anvil.url, contract, recipients, shape.id);
    const mined = Number(await lib.rpc(anvil.url, 'eth_getTransactionCount', [lib.devAddresses[0], 'latest'])) - firstNonce;
    ours = { steady, overload, rssStart, rssEnd, minted, mined, loopDelay };
  } finally {
    await serve.stop();
    await anvil.stop();
  }

  // The reference line: the same stream, pre-signed, straight to a fresh node.
  const reference = await (async () => {
    const node = await lib.startAnvil({ blockTime: BLOCK_TIME });
    try {
      const address = await lib.deployContract(node.url);
      const wallet = new Wallet(lib.devKeys[0]);
      const n = shape.rate * SECONDS;
      const recipients = lib.randomAddresses(n, 3803);
      const first = Number(await lib.rpc(node.url, 'eth_getTransactionCount', [wallet.address, 'pending']));
      const base = BigInt((await lib.rpc(node.url, 'eth_getBlockByNumber', ['latest', false])).baseFeePerGas);
      const tip = BigInt(await lib.rpc(node.url, 'eth_maxPriorityFeePerGas'));
      say(`the reference: signing ${n} mints`);
      const raw = [];
      for (let i = 0; i < n; ++i) {
        raw.push(
          await wallet.signTransaction({
            type: 2, chainId: 31337, nonce: first + i, to: address, gasLimit: BigInt(shape.gas),
            maxPriorityFeePerGas: tip, maxFeePerGas: 4n * base + tip,
            data: token.encodeFunctionData('mint', [recipients[i], shape.id, 1, shape.data]),
          }),
        );
      }
      const watcher = receiptWatcher(node.url);
      await lib.nextBlock(node.url);
      say(`the reference: ${n} pre-signed mints at ${shape.rate}/s`);
      const results = await openLoop(shape.rate, n, async (i) => {
        // Watched before it is sent, so no block can hold it unseen.
        const mined = watcher.wait(keccak256(raw[i]));
        const answer = await lib.rpc(node.url, 'eth_sendRawTransaction', [raw[i]]).catch(() => null);
        if (!answer) return { status: 0, ok: false };
        const receipt = await mined;
        return { status: 200, ok: receipt.status === '0x1' };
      });
      await watcher.stop();
      return results;
    } finally {
      await node.stop();
    }
  })();

  const steadyW = windows(ours.steady);
  const referenceW = windows(reference);
  for (const line of [...windowLines('abcictl', steadyW), ...windowLines('pre-signed', referenceW)]) say(line);
  const accepted = ours.steady.filter((r) => r.ok).length;
  const failures = ours.steady.length - accepted;
  const refAccepted = reference.filter((r) => r.ok).length;
  const later = steadyW.slice(1);
  const worstP99 = Math.max(...later.map((w) => w.p99));
  const backlog = steadyW[steadyW.length - 1].p99 / steadyW[1].p99;

  const overAnswers = ours.overload;
  const overOk = overAnswers.filter((r) => r.ok).length;
  const refused = overAnswers.filter((r) => r.status === 503);
  const refusedRight = refused.filter((r) => r.retryAfter !== undefined).length;
  const other = overAnswers.length - overOk - refused.length;
  const statuses = {};
  for (const r of overAnswers) statuses[r.status] = (statuses[r.status] || 0) + 1;
  // What the connections without an answer met (reset, hang-up, timeout).
  const errors = {};
  for (const r of overAnswers) if (r.error) errors[r.error] = (errors[r.error] || 0) + 1;
  const answered200 = accepted + overOk;
  const lost = ours.minted !== answered200 || ours.mined !== answered200;
  const overW = windows(overAnswers); // none with ABCICTL_BENCH_OVERLOAD_SECONDS=0
  for (const line of windowLines('abcictl overload', overW)) say(line);
  say(`overload: no answer ${JSON.stringify(errors)}; the load generator's event loop delay p99 ${ours.loopDelay.p99.toFixed(0)} ms, max ${ours.loopDelay.max.toFixed(0)} ms`);
  say(`overload statuses ${JSON.stringify(statuses)}; 200 answers ${answered200}, tokens on chain ${ours.minted}, transactions mined ${ours.mined}; RSS ${ours.rssStart.toFixed(0)} → ${ours.rssEnd.toFixed(0)} MiB`);

  const rate = shape.rate;
  return [
    {
      measurement: `sustained: ${rate} keyed entity mints/s for ${SECONDS} s (open loop, 1 s blocks; ${shape.why}): accepted / offered`,
      ours: `${accepted}/${ours.steady.length} accepted, ${failures} failures; p99 per 10 s window ${p99s(steadyW)} s`,
      peer: `pre-signed, the same stream: ${refAccepted}/${reference.length}; p99 per window ${p99s(referenceW)} s`,
      ratio: accepted / ours.steady.length, target: '≥ 0.99×, 0 failures', met: accepted / ours.steady.length >= 0.99 && failures === 0,
      raw: { shape: { ...shape, id: String(shape.id) }, steady: steadyW, reference: referenceW },
    },
    {
      measurement: 'sustained: the worst p99 of the windows after the first vs 2 block times',
      ours: `${s(worstP99)} s`, peer: `2 block times: ${2 * BLOCK_TIME} s; pre-signed worst p99 ${s(Math.max(...referenceW.slice(1).map((w) => w.p99)))} s`,
      ratio: worstP99 / (2000 * BLOCK_TIME), target: '≤ 1.0×', met: worstP99 <= 2000 * BLOCK_TIME,
    },
    {
      measurement: 'sustained: no growing backlog, the last window\'s p99 vs the second\'s',
      ours: `${s(steadyW[steadyW.length - 1].p99)} s vs ${s(steadyW[1].p99)} s`, peer: '', ratio: backlog, target: '≤ 1.2×', met: backlog <= 1.2,
    },
    {
      measurement: `overload: ${2 * shape.ceiling} mints/s (2× the chain's ceiling) for ${OVERLOAD_SECONDS} s: tokens on chain vs 200 answers (the whole run)`,
      ours: `${overOk} of ${overAnswers.length} answered 200, ${refused.length} refused with 503 (${refusedRight} with Retry-After), ${other} other; ` +
        `200s ${answered200}, tokens on chain ${ours.minted}, mined ${ours.mined}; RSS ${ours.rssStart.toFixed(0)} → ${ours.rssEnd.toFixed(0)} MiB`,
      peer: `p99 per window ${p99s(overW)} s`,
      ratio: ours.minted / answered200, target: '= 1×, every refusal a 503 with Retry-After',
      met: !lost && other === 0 && refusedRight === refused.length,
      raw: { statuses, errors, loopDelay: ours.loopDelay, overload: overW, rssStart: ours.rssStart, rssEnd: ours.rssEnd, minted: ours.minted, mined: ours.mined },
    },
  ];
}
