// Mint throughput: 1000 role mints to distinct wallets on anvil with 1-second
// blocks, each contender on its own fresh chain, each started right after a
// block so that no one is favoured by where in the block interval it begins:
//   - the ceiling: the same 1000 mints pre-signed and sent as one JSON-RPC batch;
//   - abcictl serve: 1000 concurrent POST /abci/contracts/mint-role-token, each
//     with its own Idempotency-Key as real callers send them;
//   - the peer: ethers v6 with its NonceManager, 1000 concurrent contract calls;
//   - abcictl serve in its batching mode (mintMany), the same 1000 requests.
// Every mint is checked afterwards: its own mined receipt, contiguous nonces,
// and a balance of 1 on chain for every wallet.

import { Contract, JsonRpcProvider, NonceManager, Wallet, Interface } from 'ethers';
import { request as httpRequest, Agent } from 'node:http';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { median, nextBlock, percentile, rpc } from '../lib.mjs';
import { cpuMillis } from './common.mjs';

const N = Number(process.env.ABCICTL_BENCH_MINTS || 1000);
// Batching mode is compared on a burst that one transaction per mint cannot
// fit in two blocks (about 526 role mints a block) but mintMany can (about 850).
const N_BATCHED = Number(process.env.ABCICTL_BENCH_BATCHED_MINTS || 1500);
const BLOCK_TIME = 1;
const ROLE_TOKEN = 10000; // producer
// The mint's data as the server sends it: a CIDv1 (raw, sha2-256, base32) as text.
const CID_DATA = '0x' + Buffer.from('bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy').toString('hex');

export async function rpcBatch(url, calls) {
  const out = [];
  for (let i = 0; i < calls.length; i += 500) {
    const slice = calls.slice(i, i + 500);
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(slice.map(([method, params], j) => ({ jsonrpc: '2.0', id: j, method, params }))),
    });
    const answers = await r.json();
    answers.sort((a, b) => a.id - b.id);
    out.push(...answers);
  }
  return out;
}

// Resolves with the time (ms, performance.now()) at which `who`'s mined nonce reached `target`.
async function minedNonceReaches(url, who, target) {
  for (;;) {
    if (Number(await rpc(url, 'eth_getTransactionCount', [who, 'latest'])) >= target) return performance.now();
    await new Promise((r) => setTimeout(r, 10));
  }
}

const token = new Interface(['function mint(address to, uint256 id, uint256 amount, bytes data)']);

// Checks on chain what the contenders claim: each hash mined successfully,
// sent by `signer` with nonces exactly [first, first + count) when `count` is
// given, and every recipient holding the token once.
async function verify(lib, url, contract, { hashes, recipients, signer, firstNonce, count }) {
  const problems = [];
  const receipts = await rpcBatch(url, hashes.map((h) => ['eth_getTransactionReceipt', [h]]));
  const failed = receipts.filter((r) => !r.result || r.result.status !== '0x1').length;
  if (failed) problems.push(`${failed} transactions not mined successfully`);
  if (count !== undefined) {
    const txs = await rpcBatch(url, [...new Set(hashes)].map((h) => ['eth_getTransactionByHash', [h]]));
    const nonces = txs.map((t) => Number(t.result.nonce)).sort((a, b) => a - b);
    const contiguous = nonces.length === count && nonces.every((n, i) => n === firstNonce + i);
    if (!contiguous) problems.push(`nonces not contiguous from ${firstNonce} (${nonces.length} transactions)`);
    if (txs.some((t) => t.result.from.toLowerCase() !== signer.toLowerCase())) problems.push('a transaction from another sender');
  }
  const abi = new Interface(['function balanceOfBatch(address[] accounts, uint256[] ids) view returns (uint256[])']);
  const data = abi.encodeFunctionData('balanceOfBatch', [recipients, recipients.map(() => ROLE_TOKEN)]);
  const [balances] = abi.decodeFunctionResult('balanceOfBatch', await rpc(url, 'eth_call', [{ to: contract, data }, 'latest']));
  const wrong = balances.filter((b) => b !== 1n).length;
  if (wrong) problems.push(`${wrong} wallets do not hold exactly one token`);
  return problems;
}

async function fundedChain(lib, blockTime = BLOCK_TIME) {
  const anvil = await lib.startAnvil({ blockTime });
  const contract = await lib.deployContract(anvil.url);
  return { anvil, contract };
}

// The ceiling: N mints signed beforehand, sent as one batch after a block.
export async function ceiling(lib, N) {
  const { anvil, contract } = await fundedChain(lib);
  const wallet = new Wallet(lib.devKeys[0]);
  const recipients = lib.randomAddresses(N, 11);
  const first = Number(await rpc(anvil.url, 'eth_getTransactionCount', [wallet.address, 'pending']));
  const gas = await rpc(anvil.url, 'eth_estimateGas', [
    { from: wallet.address, to: contract, data: token.encodeFunctionData('mint', [recipients[0], ROLE_TOKEN, 1, CID_DATA]) },
  ]);
  const fees = await rpc(anvil.url, 'eth_maxPriorityFeePerGas');
  const base = (await rpc(anvil.url, 'eth_getBlockByNumber', ['latest', false])).baseFeePerGas;
  const raw = [];
  for (let i = 0; i < N; ++i) {
    raw.push(
      await wallet.signTransaction({
        type: 2, chainId: 31337, nonce: first + i, to: contract, gasLimit: BigInt(gas),
        maxPriorityFeePerGas: BigInt(fees), maxFeePerGas: 2n * BigInt(base) + BigInt(fees),
        data: token.encodeFunctionData('mint', [recipients[i], ROLE_TOKEN, 1, CID_DATA]),
      }),
    );
  }
  await nextBlock(anvil.url);
  const start = performance.now();
  const answers = await rpcBatch(anvil.url, raw.map((r) => ['eth_sendRawTransaction', [r]]));
  const end = await minedNonceReaches(anvil.url, wallet.address, first + N);
  const hashes = answers.map((a) => a.result);
  const problems = answers.some((a) => a.error) ? ['a pre-signed transaction was refused'] : [];
  problems.push(...(await verify(lib, anvil.url, contract, { hashes, recipients, signer: wallet.address, firstNonce: first, count: N })));
  await anvil.stop();
  return { rate: (N * 1000) / (end - start), seconds: (end - start) / 1000, gas: Number(gas), problems, n: N };
}

// The peer: ethers v6, a NonceManager over one wallet, N concurrent mint calls, each awaited to its receipt.
export async function ethersPeer(lib, N) {
  const { anvil, contract } = await fundedChain(lib);
  // Polling every 100 ms (ethers' default is 4 s) so the peer is not held back by its defaults.
  const provider = new JsonRpcProvider(anvil.url, 31337, { staticNetwork: true, pollingInterval: 100, batchMaxCount: 100 });
  const signer = new NonceManager(new Wallet(lib.devKeys[0], provider));
  const minter = new Contract(contract, token, signer);
  const recipients = lib.randomAddresses(N, 12);
  const first = Number(await rpc(anvil.url, 'eth_getTransactionCount', [lib.devAddresses[0], 'pending']));
  if (blockTime) await nextBlock(anvil.url);
  const cpuBefore = cpuMillis(serve.pid);
  const start = performance.now();
  const latencies = [];
  let failures = 0;
  const hashes = await Promise.all(
    recipients.map(async (to) => {
      const t0 = performance.now();
      try {
        const tx = await minter.mint(to, ROLE_TOKEN, 1, CID_DATA);
        const receipt = await tx.wait();
        latencies.push(performance.now() - t0);
        return receipt.hash;
      } catch {
        ++failures;
        return null;
      }
    }),
  );
  const end = performance.now();
  const problems = await verify(lib, anvil.url, contract, {
    hashes: hashes.filter(Boolean), recipients, signer: lib.devAddresses[0], firstNonce: first, count: N,
  });
  await anvil.stop();
  return { rate: (N * 1000) / (end - start), latencies, failures, problems, n: N };
}

// A POST as real callers send a mint: with an Idempotency-Key of its own (the
// CLI always sends one), which the server records with the mint; `extra`
// headers added (Prefer: respond-async).
export function post(agent, url, path, token, body, extra = {}) {
  return new Promise((resolve) => {
    const payload = JSON.stringify(body);
    const headers = {
      'content-type': 'application/json', authorization: `Bearer ${token}`, 'content-length': Buffer.byteLength(payload),
      'idempotency-key': randomUUID(), ...extra,
    };
    const req = httpRequest(
      `${url}${path}`,
      { method: 'POST', agent, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode, text, headers: res.headers }));
      },
    );
    req.on('error', (e) => resolve({ status: 0, text: e.message }));
    req.end(payload);
  });
}

// abcictl serve: N concurrent mint requests, each its own connection.
// `blockTime` null: anvil mines each transaction as it comes (automine).
export async function ours(lib, ctx, N, { extraToml = '', seed, blockTime = BLOCK_TIME }) {
  const { anvil, contract } = await fundedChain(lib, blockTime);
  const serve = await lib.startServe(ctx.abcictl, { anvilUrl: anvil.url, contract, extraToml });
  const recipients = lib.randomAddresses(N + 1, seed);
  lib.addWalletUsers(ctx.abcictl, serve.dataDir, recipients);
  const token = await lib.loginAdmin(serve);
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const body = (to) => ({ userAddress: to, roleType: 'producer', blockchainId: 'devnet' });
  // One mint first, as any running server has done: the signer's nonce is read and connections are warm.
  const warm = await post(agent, serve.url, '/abci/contracts/mint-role-token', token, body(recipients[N]));
  if (warm.status !== 200) throw new Error(`warm-up mint: ${warm.status} ${warm.text}`);
  const targets = recipients.slice(0, N);
  const first = Number(await rpc(anvil.url, 'eth_getTransactionCount', [lib.devAddresses[0], 'latest']));
  if (blockTime) await nextBlock(anvil.url);
  const cpuBefore = cpuMillis(serve.pid);
  const start = performance.now();
  const latencies = [];
  const answers = await Promise.all(
    targets.map(async (to) => {
      const t0 = performance.now();
      const r = await post(agent, serve.url, '/abci/contracts/mint-role-token', token, body(to));
      latencies.push(performance.now() - t0);
      return r;
    }),
  );
  const end = performance.now();
  const serverCpuMs = cpuMillis(serve.pid) - cpuBefore;
  agent.destroy();
  const ok = answers.filter((a) => a.status === 200).map((a) => JSON.parse(a.text).data);
  const failures = N - ok.length;
  const problems = [];
  if (failures) {
    const sample = answers.find((a) => a.status !== 200);
    problems.push(`${failures} requests failed (e.g. ${sample.status} ${sample.text.slice(0, 200)})`);
  }
  const hashes = ok.map((d) => d.transactionHash);
  const batched = extraToml.includes('[mint_batching]');
  // In batching mode many requests share a transaction; otherwise each has its own.
  if (!batched && new Set(hashes).size !== ok.length) problems.push('two requests answered with the same transaction');
  const receipts = await rpcBatch(anvil.url, [...new Set(hashes)].map((h) => ['eth_getTransactionReceipt', [h]]));
  const blockOf = new Map(receipts.map((r) => [r.result?.transactionHash, Number(r.result?.blockNumber)]));
  if (ok.some((d) => blockOf.get(d.transactionHash) !== d.blockNumber)) problems.push('an answer names the wrong block');
  const sent = new Set(hashes).size;
  const blocks = new Set(ok.map((d) => d.blockNumber)).size;
  if (process.env.ABCICTL_BENCH_DEBUG) {
    const perBlock = {};
    for (const d of ok) perBlock[d.blockNumber] = (perBlock[d.blockNumber] || 0) + 1;
    process.stderr.write(`mint: transactions per block ${JSON.stringify(perBlock)}\n`);
  }
  problems.push(
    ...(await verify(lib, anvil.url, contract, {
      hashes, recipients: targets, signer: lib.devAddresses[0], firstNonce: first, count: sent,
    })),
  );
  await serve.stop();
  await anvil.stop();
  return { rate: (N * 1000) / (end - start), latencies, failures, problems, transactions: sent, blocks, n: N, serverCpuMs };
}

const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
function describe(r) {
  const lat = r.latencies.length
    ? `, p50 ${seconds(median(r.latencies))}, p99 ${seconds(percentile(r.latencies, 99))}`
    : '';
  const txs = r.transactions !== undefined && r.transactions !== r.n ? `, ${r.transactions} txs` : '';
  const blocks = r.blocks !== undefined ? `, in ${r.blocks} blocks` : '';
  return `${Math.round(r.rate)} mints/s${lat}${txs}${blocks}, ${r.failures} failures${r.problems.length ? ' ✘ ' + r.problems.join('; ') : ''}`;
}

const ceilingText = (top) =>
  `pre-signed batch: ${Math.round(top.rate)} mints/s (${top.seconds.toFixed(2)} s, ${top.gas} gas each)` +
  (top.problems.length ? ' ✘ ' + top.problems.join('; ') : '');
const clean = (r) => r.failures === 0 && r.problems.length === 0;

// The burst is decided by where its first second falls against the blocks, so
// one run says little: each run pairs the ceiling and abcictl on fresh chains,
// and the target is met when all runs but one reach it.
const RUNS = Number(process.env.ABCICTL_BENCH_MINT_RUNS || 5);

export default async function run(ctx) {
  const lib = ctx.lib;
  const pairs = [];
  for (let i = 1; i <= RUNS; ++i) {
    process.stderr.write(`mint: run ${i}/${RUNS}: the ceiling (${N} pre-signed mints in one batch), load ${loadavg()[0].toFixed(2)}\n`);
    const top = await ceiling(lib, N);
    process.stderr.write(`mint: run ${i}/${RUNS}: abcictl serve (${N} concurrent keyed requests), load ${loadavg()[0].toFixed(2)}\n`);
    const mine = await ours(lib, ctx, N, { seed: 13 });
    pairs.push({ top, mine, ratio: mine.rate / top.rate });
    process.stderr.write(`mint: run ${i}/${RUNS}: ${mine.rate.toFixed(0)} vs ${top.rate.toFixed(0)} mints/s = ${(mine.rate / top.rate).toFixed(2)}× (${describe(mine)})\n`);
  }
  const passed = pairs.filter((p) => p.ratio >= 0.9 && clean(p.mine) && p.top.problems.length === 0).length;
  const middle = [...pairs].sort((a, b) => a.ratio - b.ratio)[Math.floor((pairs.length - 1) / 2)];
  const burstRow = {
    measurement: `mint throughput: ${N} concurrent mint-role-token requests, each with an Idempotency-Key, vs the pre-signed ceiling (median of ${RUNS} runs)`,
    ours: `${describe(middle.mine)}; runs ${pairs.map((p) => p.ratio.toFixed(2) + '×').join(', ')}`,
    peer: ceilingText(middle.top), ratio: middle.ratio, target: `≥ 0.9× in ${Math.max(1, RUNS - 1)} of ${RUNS} runs, 0 failures`,
    met: passed >= Math.max(1, RUNS - 1) && pairs.every((p) => clean(p.mine)),
    raw: pairs.map((p) => ({ ratio: p.ratio, ours: p.mine.rate, ceiling: p.top.rate, blocks: p.mine.blocks, failures: p.mine.failures })),
  };
  // ABCICTL_BENCH_MINT_BURST_ONLY=1: the burst against the ceiling alone (to compare a change before and after).
  if (process.env.ABCICTL_BENCH_MINT_BURST_ONLY) return [burstRow];
  const mine = middle.mine;
  process.stderr.write(`mint: ethers v6 NonceManager (${N} concurrent mints)\n`);
  const peer = await ethersPeer(lib, N);
  process.stderr.write(`mint: the ceiling (${N_BATCHED} pre-signed mints in one batch)\n`);
  const topBatched = await ceiling(lib, N_BATCHED);
  process.stderr.write(`mint: abcictl serve, batching mode (${N_BATCHED} concurrent requests)\n`);
  const batched = await ours(lib, ctx, N_BATCHED, { seed: 14, extraToml: '[mint_batching]\nenabled = true\n' });
  return [
    burstRow,
    {
      measurement: `mint throughput: ${N} concurrent mints vs ethers v6 NonceManager`,
      ours: describe(mine), peer: `ethers v6: ${describe(peer)}`, ratio: mine.rate / peer.rate, target: '≥ 5×, 0 failures',
      met: mine.rate / peer.rate >= 5 && clean(mine),
    },
    {
      measurement: `mint throughput, batching mode (mintMany): ${N_BATCHED} concurrent requests vs the pre-signed ceiling`,
      ours: describe(batched), peer: ceilingText(topBatched), ratio: batched.rate / topBatched.rate, target: '> 1×, 0 failures',
      met: batched.rate / topBatched.rate > 1 && clean(batched) && topBatched.problems.length === 0,
    },
  ];
}
