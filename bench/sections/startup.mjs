// startup: how fast the command line answers, by hyperfine (3 warm-ups, 30
// runs, no shell): `abcictl version` against `cast --version`, and `abcictl
// chains list` answered from its cache (logged in to a running serve, the list
// fetched once before) against `cast chain-id` asking a running anvil.
// Ratio: our mean time / cast's; target ≤ 0.5×.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as lib from '../lib.mjs';
import { atMost, clientEnv, loginCli, ms, progress, run, withChainServer } from './common.mjs';

const kTarget = 0.5;

// hyperfine's mean and standard deviation (ms) of each command, in order.
export async function hyperfine(commands, env) {
  const out = join(lib.tempDir(), 'hyperfine.json');
  await run(['hyperfine', '-N', '--warmup', '3', '--runs', '30', '--style', 'none', '--export-json', out, ...commands], { env });
  return JSON.parse(readFileSync(out, 'utf8')).results.map((r) => ({ mean: r.mean * 1000, sd: r.stddev * 1000 }));
}

function row(measurement, [ours, peer], peerName) {
  const text = (t) => `${ms(t.mean)} ± ${ms(t.sd)}`;
  return atMost(measurement, ours.mean, peer.mean, text(ours), `${peerName}: ${text(peer)}`, kTarget, { ours, peer });
}

export default async function startup(ctx) {
  const cast = lib.tool('cast');
  progress('startup', 'abcictl version vs cast --version');
  const version = await hyperfine([`${ctx.abcictl} version`, `${cast} --version`], {});

  const cached = await withChainServer(ctx, {}, async ({ anvil, serve }) => {
    const env = clientEnv(serve.url);
    await loginCli(ctx.abcictl, env);
    await run([ctx.abcictl, 'chains', 'list'], { env });
    progress('startup', 'abcictl chains list (cached) vs cast chain-id');
    return hyperfine([`${ctx.abcictl} chains list`, `${cast} chain-id --rpc-url ${anvil.url}`], env);
  });

  return [
    row('start-up: `abcictl version`', version, '`cast --version`'),
    row('start-up: `abcictl chains list` (cached)', cached, '`cast chain-id`'),
  ];
}
