// async: what `Prefer: respond-async` buys a caller (issue 34 item 8). One
// abcictl serve on anvil with 1 s blocks, a webhook subscription for
// mint.confirmed to a receiver in this process that verifies every delivery
// with the `standardwebhooks` package (the specification's reference
// library); in the same run, each started right after a block:
//   - synchronous: N concurrent POST /abci/contracts/mint-entity-token, each
//     with its own Idempotency-Key, each held until its 200 (the mint is
//     mined): the rate at which callers are answered;
//   - async: the same N requests with Prefer: respond-async: the rate at
//     which they are accepted (202), then every mint's mint.confirmed
//     awaited at the receiver. Its delivery lag is counted from the moment
//     the confirming block (the mint's block plus the chain's confirmations
//     less one) was first seen on the node by a poller asking every 10 ms.
// The chain is the oracle: every recipient holds exactly one token, the
// signer's nonce moved by exactly one transaction per mint, every
// mint.confirmed names a mined transaction to its recipient.
// Targets: acceptance ≥ 10× the synchronous rate; p99 lag within one block time.
// The reference, right before the async burst: the same N concurrent POSTs
// answered by the server's constant-body route (cpp-httplib on the same
// listener and threads, nothing of ours), what the machine allows a burst of
// new connections now: on 2 shared cores the acceptance ratio is bounded by
// it, not by the mint's own work (docs/performance.md, issue 34).

import { Agent, createServer } from 'node:http';
import { loadavg } from 'node:os';
import { Interface } from 'ethers';
import { Webhook } from 'standardwebhooks';
import * as lib from '../lib.mjs';
import { ms, num, progress } from './common.mjs';
import { post, rpcBatch } from './mint.mjs';
import { entityBody } from './sustained.mjs';

const N = Number(process.env.ABCICTL_BENCH_ASYNC_MINTS || 1000);
const BLOCK_TIME = 1;
const CONFIRMATIONS = 1;  // the chain's default
const REPORT = 1000;  // the report entity's token id
const say = (message) => progress('async', `${message} (load ${loadavg()[0].toFixed(2)})`);
const abi = new Interface(['function balanceOfBatch(address[] accounts, uint256[] ids) view returns (uint256[])']);

// A receiver on a free loopback port: each delivery verified, its arrival
// time kept by the mint it confirms. Resolves {url, arrivals, refused, close()}.
async function receiver() {
  const arrivals = new Map();  // mintId -> {at, result}
  const state = { webhook: null, refused: 0 };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      try {
        const event = state.webhook.verify(Buffer.concat(chunks).toString('utf8'), req.headers);
        if (event.type === 'mint.confirmed' && !arrivals.has(event.data.mintId))
          arrivals.set(event.data.mintId, { at, result: event.data.result });
        res.writeHead(204).end();
      } catch {
        ++state.refused;
        res.writeHead(400).end();
      }
    });
  });
  const port = await lib.freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/abci`, arrivals, state,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

// When each block was first seen, until stop() (performance.now() ms by block number).
function blockWatch(url) {
  const seen = new Map();
  let running = true;
  const done = (async () => {
    while (running) {
      const n = Number(await lib.rpc(url, 'eth_blockNumber'));
      if (!seen.has(n)) seen.set(n, performance.now());
      await lib.sleep(10);
    }
  })();
  return { seen, stop: async () => { running = false; await done; } };
}

// N concurrent requests to `path` (with `headers`); resolves {answers, seconds} once all are in.
async function burst(serve, token, recipients, tag, headers, path = '/abci/contracts/mint-entity-token') {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const start = performance.now();
  const answers = await Promise.all(
    recipients.map((to, i) => post(agent, serve.url, path, token, entityBody(to, `${tag}-${i}`), headers)),
  );
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return { answers, seconds };
}

const failures = (answers, status) => answers.filter((a) => a.status !== status);
const sample = (bad) => (bad.length ? ` (e.g. ${bad[0].status} ${bad[0].text.slice(0, 160)})` : '');

// On chain: each of `recipients` holds one report token, and each mint's named transaction is a mined one.
async function verify(anvilUrl, contract, recipients, hashes) {
  const problems = [];
  const data = abi.encodeFunctionData('balanceOfBatch', [recipients, recipients.map(() => REPORT)]);
  const [balances] = abi.decodeFunctionResult('balanceOfBatch', await lib.rpc(anvilUrl, 'eth_call', [{ to: contract, data }, 'latest']));
  const wrong = balances.filter((b) => b !== 1n).length;
  if (wrong) problems.push(`${wrong} wallets do not hold exactly one token`);
  const receipts = await rpcBatch(anvilUrl, hashes.map((h) => ['eth_getTransactionReceipt', [h]]));
  const unmined = receipts.filter((r) => !r.result || r.result.status !== '0x1').length;
  if (unmined) problems.push(`${unmined} named transactions not mined successfully`);
  if (new Set(hashes).size !== hashes.length) problems.push('two mints name the same transaction');
  return problems;
}

export default async function run(ctx) {
  const anvil = await lib.startAnvil({ blockTime: BLOCK_TIME });
  const hook = await receiver();
  let serve = null;
  try {
    const contract = await lib.deployContract(anvil.url);
    serve = await lib.startServe(ctx.abcictl, {
      anvilUrl: anvil.url, contract, env: { ABCI_BENCH_REFERENCE_ROUTE: '1' },
      extraToml: '[webhooks]\nallowInsecureTargets = true\nallowPrivateTargets = true\n',
    });
    const token = await lib.loginAdmin(serve);
    const created = await fetch(`${serve.url}/api/admin/webhooks`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ url: hook.url, events: ['mint.confirmed'], description: 'bench' }),
    });
    if (created.status !== 201) throw new Error(`webhook subscription: ${created.status} ${await created.text()}`);
    hook.state.webhook = new Webhook((await created.json()).data.secret);
    const signer = lib.devAddresses[0];
    const firstNonce = Number(await lib.rpc(anvil.url, 'eth_getTransactionCount', [signer, 'latest']));
    const [syncTo, asyncTo] = [lib.randomAddresses(N, 41), lib.randomAddresses(N, 42)];

    await lib.nextBlock(anvil.url);
    say(`synchronous: ${N} concurrent keyed mints, each held until mined`);
    const sync = await burst(serve, token, syncTo, 'sync', {});
    const syncBad = failures(sync.answers, 200);
    // The synchronous mints' own mint.confirmed deliveries drain before the async burst starts.
    for (const until = performance.now() + 120_000; hook.arrivals.size < N - syncBad.length && performance.now() < until;)
      await lib.sleep(50);

    say(`reference: ${N} concurrent POSTs of the same requests to the constant-body route`);
    const reference = await burst(serve, token, asyncTo, 'reference', { prefer: 'respond-async' }, '/_bench/reference');
    const referenceBad = failures(reference.answers, 200);

    await lib.nextBlock(anvil.url);
    const watch = blockWatch(anvil.url);
    say(`async: ${N} concurrent keyed mints with Prefer: respond-async`);
    const accepted = await burst(serve, token, asyncTo, 'async', { prefer: 'respond-async' });
    const asyncBad = failures(accepted.answers, 202);
    const asyncIds = accepted.answers.filter((a) => a.status === 202).map((a) => JSON.parse(a.text).data.mintId);
    const deadline = performance.now() + 120_000;
    while (asyncIds.some((id) => !hook.arrivals.has(id)) && performance.now() < deadline) await lib.sleep(50);
    await watch.stop();

    const lags = [];
    const hashes = [];
    let undelivered = 0;
    for (const id of asyncIds) {
      const arrival = hook.arrivals.get(id);
      if (!arrival) {
        ++undelivered;
        continue;
      }
      const { blockNumber, transactionHash } = arrival.result.data;
      hashes.push(transactionHash);
      const confirming = blockNumber + CONFIRMATIONS - 1;
      if (watch.seen.has(confirming)) lags.push(arrival.at - watch.seen.get(confirming));
    }
    const syncHashes = sync.answers.filter((a) => a.status === 200).map((a) => JSON.parse(a.text).data.transactionHash);
    const problems = await verify(anvil.url, contract, [...syncTo, ...asyncTo], [...syncHashes, ...hashes]);
    const lastNonce = Number(await lib.rpc(anvil.url, 'eth_getTransactionCount', [signer, 'latest']));
    if (lastNonce - firstNonce !== 2 * N) problems.push(`the signer's nonce moved by ${lastNonce - firstNonce}, not ${2 * N}`);
    if (syncBad.length) problems.push(`${syncBad.length} synchronous mints not answered 200${sample(syncBad)}`);
    if (referenceBad.length) problems.push(`${referenceBad.length} POSTs to the constant-body route not answered 200${sample(referenceBad)}`);
    if (asyncBad.length) problems.push(`${asyncBad.length} async mints not accepted 202${sample(asyncBad)}`);
    if (undelivered) problems.push(`${undelivered} mint.confirmed not delivered within 120 s`);
    if (hook.state.refused) problems.push(`${hook.state.refused} deliveries failed verification`);
    if (lags.length !== asyncIds.length - undelivered) problems.push(`${asyncIds.length - undelivered - lags.length} confirming blocks not seen by the poller`);

    const syncRate = N / sync.seconds;
    const asyncRate = N / accepted.seconds;
    const referenceRate = N / reference.seconds;
    const p50 = lib.percentile(lags, 50);
    const p99 = lib.percentile(lags, 99);
    const flag = problems.length ? ` ✘ ${problems.join('; ')}` : '';
    say(`accepted ${num(asyncRate)}/s vs answered ${num(syncRate)}/s (constant route ${num(referenceRate)}/s); lag p50 ${ms(p50)}, p99 ${ms(p99)}${flag}`);
    return [
      {
        measurement: `async mints: ${num(N)} concurrent keyed mint-entity-token requests with Prefer: respond-async accepted (202) vs the same synchronously answered (200), one server, 1 s blocks`,
        ours: `${num(asyncRate)} accepted/s (${accepted.seconds.toFixed(2)} s)${flag}`,
        peer: `synchronous: ${num(syncRate)} answered/s (${sync.seconds.toFixed(2)} s)`,
        ratio: asyncRate / syncRate, target: '≥ 10×, 0 failures', met: asyncRate / syncRate >= 10 && !problems.length,
        raw: { n: N, asyncSeconds: accepted.seconds, syncSeconds: sync.seconds, referenceSeconds: reference.seconds, problems },
      },
      {
        measurement: `async mints: the same ${num(N)} concurrent POSTs answered by the constant-body route on the same server (cpp-httplib, nothing of ours) vs the synchronous mints: the ratio the machine allows this burst now`,
        ours: `${num(referenceRate)} answered/s (${reference.seconds.toFixed(2)} s); async acceptance ${(asyncRate / referenceRate).toFixed(2)}× of it`,
        peer: `synchronous: ${num(syncRate)} answered/s`,
        ratio: referenceRate / syncRate, target: 'reference', met: true,
        raw: { referenceSeconds: reference.seconds },
      },
      {
        measurement: `async mints: mint.confirmed delivery lag after the confirming block (${num(lags.length)} deliveries verified by standardwebhooks, confirmations ${CONFIRMATIONS})`,
        ours: `p50 ${ms(p50)}, p99 ${ms(p99)}${flag}`, peer: `one block time: ${ms(BLOCK_TIME * 1000)}`,
        ratio: p99 / (BLOCK_TIME * 1000), target: 'p99 ≤ 1.0× a block, 0 failures', met: p99 <= BLOCK_TIME * 1000 && !problems.length,
        raw: { p50, p99, lags: lags.length },
      },
    ];
  } finally {
    if (serve) await serve.stop();
    await hook.close();
    await anvil.stop();
  }
}
