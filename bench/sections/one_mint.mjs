// one_mint: one role-token mint end to end from a terminal, on an automining
// anvil: `abcictl mint-role` (logged in, through serve) against `cast send`
// of the same mint(address,uint256,uint256,bytes) call with its own key (dev
// account 1, granted MINTER_ROLE, so the two never share a nonce). 15 runs of
// each, alternating, after one warm-up each, every one to a fresh wallet and
// measured by GNU time (peak RSS) and the wall clock; medians compared.
// Targets: wall time ≤ 1.0× cast's, peak memory ≤ 0.5×.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as lib from '../lib.mjs';
import { atMost, cast, clientEnv, loginCli, ms, num, producerTokenId, progress, run, withChainServer } from './common.mjs';

const kRuns = 15;

// Wall time (ms) and peak RSS (KiB) of `argv`, which must exit 0; GNU time
// writes its figures to `timeFile` (the wall time it rounds to 10 ms, so ours
// is taken from the clock around it).
async function measured(timeFile, argv, env = {}) {
  const { ms: wall } = await run(['/usr/bin/time', '-o', timeFile, '-f', '%e %M', ...argv], { env });
  const [, rss] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).slice(-2);
  return { wall, rss: Number(rss) };
}

export default async function oneMint(ctx) {
  const grantMinter = async ({ anvil, contract }) => {
    const role = await cast('call', contract, 'MINTER_ROLE()(bytes32)', '--rpc-url', anvil.url);
    await cast('send', contract, 'grantRole(bytes32,address)', role, lib.devAddresses[1], '--private-key', lib.devKeys[0], '--rpc-url', anvil.url);
  };
  const samples = await withChainServer(ctx, { beforeServe: grantMinter }, async ({ anvil, contract, serve }) => {
    const env = clientEnv(serve.url);
    await loginCli(ctx.abcictl, env);
    const ourWallets = lib.randomAddresses(kRuns + 1, 6101);
    const castWallets = lib.randomAddresses(kRuns + 1, 6102);
    lib.addWalletUsers(ctx.abcictl, serve.dataDir, ourWallets);

    const timeFile = join(lib.tempDir(), 'time');
    const ours = (i) => measured(timeFile, [ctx.abcictl, 'mint-role', '--address', ourWallets[i], '--role', 'producer', '--chain', 'devnet'], env);
    const peer = (i) => measured(timeFile, [lib.tool('cast'), 'send', contract, 'mint(address,uint256,uint256,bytes)', castWallets[i],
      String(producerTokenId), '1', '0x', '--private-key', lib.devKeys[1], '--rpc-url', anvil.url]);
    const result = { ours: [], peer: [] };
    progress('one_mint', `${kRuns} runs each of abcictl mint-role and cast send, alternating`);
    for (let i = 0; i <= kRuns; ++i) {
      // Run 0 warms the page cache and both sides' first connection; the order alternates.
      const pair = i % 2 ? [['peer', peer], ['ours', ours]] : [['ours', ours], ['peer', peer]];
      for (const [side, fn] of pair) {
        const sample = await fn(i);
        if (i > 0) result[side].push(sample);
      }
    }

    const wallets = [...ourWallets, ...castWallets];
    const balances = await cast('call', contract, 'balanceOfBatch(address[],uint256[])(uint256[])',
      `[${wallets.join(',')}]`, `[${wallets.map(() => producerTokenId).join(',')}]`, '--rpc-url', anvil.url);
    if (balances.replace(/\s/g, '') !== `[${wallets.map(() => '1').join(',')}]`)
      throw new Error(`not every wallet holds exactly one producer token: ${balances}`);
    return result;
  });

  const wall = (side) => lib.median(samples[side].map((s) => s.wall));
  const rss = (side) => lib.median(samples[side].map((s) => s.rss));
  const mib = (kib) => `${num(kib / 1024, 1)} MiB`;
  return [
    atMost('one mint from a terminal: wall time (median)', wall('ours'), wall('peer'), ms(wall('ours')),
      `\`cast send\`: ${ms(wall('peer'))}`, 1.0, samples),
    atMost('one mint from a terminal: peak memory (median)', rss('ours'), rss('peer'), mib(rss('ours')),
      `\`cast send\`: ${mib(rss('peer'))}`, 0.5),
  ];
}
