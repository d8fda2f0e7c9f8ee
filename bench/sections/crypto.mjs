// crypto: EIP-1559 sign-and-encode of a mint transaction and SIWE
// verification (parse, recover, checks) per second on one thread, abcictl's
// code (abci_bench_crypto, Google Benchmark) against ethers v6 and siwe in
// Node (bench/js/crypto_peer.mjs) on the identical inputs. Both must sign the
// same bytes (RFC 6979 makes signatures deterministic), or the section fails.

import { join } from 'node:path';
import { atLeast, num, progress, run } from './common.mjs';

const kPeerSeconds = 2;
const kTarget = 10;

export default async function crypto(ctx) {
  const bench = join(ctx.build, 'bench', 'abci_bench_crypto');
  const inputs = (await run([bench, '--print-inputs'])).stdout;

  progress('crypto', 'abci_bench_crypto');
  const report = JSON.parse(
    (await run([bench, '--benchmark_format=json', '--benchmark_min_time=2', '--benchmark_filter=^BM_(SignAndEncodeMint|VerifySiwe)$'])).stdout,
  );
  const ours = Object.fromEntries(report.benchmarks.map((b) => [b.name, b.items_per_second]));

  progress('crypto', 'ethers v6 and siwe in Node');
  const peer = JSON.parse((await run(['node', join(ctx.root, 'bench', 'js', 'crypto_peer.mjs'), String(kPeerSeconds)], { input: inputs })).stdout);

  const expected = JSON.parse(inputs).mint.raw;
  if (peer.raw !== expected)
    throw new Error(`the signed mint transactions differ:\n  abcictl: ${expected}\n  ethers:  ${peer.raw}`);

  const rate = (perSecond) => `${num(perSecond)} ops/s`;
  return [
    atLeast('sign + encode an EIP-1559 mint transaction', ours.BM_SignAndEncodeMint, peer.signPerSecond,
      rate(ours.BM_SignAndEncodeMint), `ethers v6: ${rate(peer.signPerSecond)}`, kTarget),
    atLeast('verify a SIWE message (parse, recover, checks)', ours.BM_VerifySiwe, peer.siwePerSecond,
      rate(ours.BM_VerifySiwe), `siwe 3 + ethers v6: ${rate(peer.siwePerSecond)}`, kTarget),
  ];
}
