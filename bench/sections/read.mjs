// read: the read route under load. wrk (1 thread, 32 keep-alive connections,
// 8 s after a 2 s warm-up) on `GET /abci/tokens/user-balance` with a JWT, for
// a user holding a role token (rate limit off), against the same wrk on two
// references in the same run: the same server's constant-body route
// (ABCI_BENCH_REFERENCE_ROUTE: cpp-httplib with the same listener and
// threads, nothing of ours), and anvil's own `eth_chainId`. Every response
// must be a 2xx (wrk counts the others). Targets (issue 38): ≥ 0.6× the
// constant route, ≥ 0.4× anvil, p99 < 5 ms. The constant route's own ratio
// to anvil is what cpp-httplib's thread-per-connection model allows here.

import { loadavg } from 'node:os';
import { join } from 'node:path';
import * as lib from '../lib.mjs';
import { atLeast, ms, num, producerTokenId, progress, run, withChainServer } from './common.mjs';

const kChainIdCall = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });

// wrk's figures (bench/js/wrk_report.lua) for `url`; with `body`, POSTs it.
export async function wrk(ctx, url, { headers = [], body = '', seconds }) {
  const script = join(ctx.root, 'bench', 'js', 'wrk_report.lua');
  const argv = ['wrk', '-t1', '-c32', `-d${seconds}s`, '--latency', '-s', script, ...headers.flatMap((h) => ['-H', h]), url];
  const { stdout } = await run(argv, { env: { WRK_BODY: body } });
  const report = JSON.parse(stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop());
  const failed = Object.entries(report.errors).filter(([, n]) => n > 0);
  if (failed.length) throw new Error(`wrk on ${url}: ${failed.map(([k, n]) => `${n} ${k} errors`).join(', ')}`);
  return { ...report, rps: report.requests / (report.duration_us / 1e6), p99: report.p99_us / 1000 };
}

// Throws unless `response` is a 200 (its body in the message otherwise).
async function require200(what, response) {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${what}: ${response.status} ${text}`);
  return JSON.parse(text);
}

export default async function read(ctx) {
  const { ours, reference, peer } = await withChainServer(ctx, { env: { ABCI_BENCH_REFERENCE_ROUTE: '1' } }, async ({ anvil, serve }) => {
    const [wallet] = lib.randomAddresses(1, 6201);
    lib.addWalletUsers(ctx.abcictl, serve.dataDir, [wallet]);
    const jwt = await lib.loginAdmin(serve);
    const auth = { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' };
    await require200('minting the role token', await fetch(`${serve.url}/abci/contracts/mint-role-token`, {
      method: 'POST', headers: auth, body: JSON.stringify({ userAddress: wallet, roleType: 'producer', blockchainId: 'devnet' }),
    }));
    const url = `${serve.url}/abci/tokens/user-balance?userAddress=${wallet}&blockchainId=devnet`;
    const balance = await require200('user-balance', await fetch(url, { headers: auth }));
    if (!balance.data.balances.some((b) => Number(b.tokenId) === producerTokenId))
      throw new Error(`user-balance does not show the minted producer token: ${JSON.stringify(balance)}`);
    const chainId = await require200('eth_chainId', await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: kChainIdCall }));
    if (chainId.result !== '0x7a69') throw new Error(`anvil's eth_chainId: ${JSON.stringify(chainId)}`);

    const referenceUrl = `${serve.url}/_bench/reference`;
    const constant = await fetch(referenceUrl);
    if (constant.status !== 200) throw new Error(`the reference route: ${constant.status} ${await constant.text()}`);

    const ourLoad = { headers: [`Authorization: Bearer ${jwt}`] };
    const peerLoad = { body: kChainIdCall };
    progress('read', `wrk on the constant route, GET /abci/tokens/user-balance, anvil eth_chainId (2 s warm-up, 8 s each), load ${loadavg()[0].toFixed(2)}`);
    const measure = async (target, load) => {
      await wrk(ctx, target, { ...load, seconds: 2 });
      return wrk(ctx, target, { ...load, seconds: 8 });
    };
    const referenceResult = await measure(referenceUrl, {});
    const oursResult = await measure(url, ourLoad);
    const peerResult = await measure(anvil.url, peerLoad);
    progress('read', `load ${loadavg()[0].toFixed(2)} at the end`);
    return { ours: oursResult, reference: referenceResult, peer: peerResult };
  });

  const rps = (r) => `${num(r.rps)} req/s`;
  const p99Row = {
    measurement: 'read route: p99 latency under that load',
    ours: ms(ours.p99),
    peer: `anvil: ${ms(peer.p99)}`,
    ratio: ours.p99 / peer.p99,
    target: '< 5 ms',
    met: ours.p99 < 5,
  };
  const withLatency = (r) => `${rps(r)}, p50 ${ms(r.p50_us / 1000)}, p99 ${ms(r.p99)}`;
  return [
    atLeast('read route: `GET /abci/tokens/user-balance` (JWT), wrk -c32, vs a constant-body route on the same server', ours.rps,
      reference.rps, withLatency(ours), `constant route: ${withLatency(reference)}`, 0.6, { ours, reference }),
    atLeast('read route: `GET /abci/tokens/user-balance` (JWT), wrk -c32, vs anvil', ours.rps, peer.rps,
      withLatency(ours), `anvil \`eth_chainId\`: ${withLatency(peer)}`, 0.4, { ours, peer }),
    p99Row,
    {
      measurement: "the constant-body route vs anvil: what cpp-httplib's thread per connection allows",
      ours: withLatency(reference), peer: `anvil \`eth_chainId\`: ${withLatency(peer)}`, ratio: reference.rps / peer.rps,
      target: 'reference', met: true, raw: { reference, peer },
    },
  ];
}
