// signer: mint throughput with the key kept three ways, in the same run, all
// of them anvil's key 0 (the token's admin and minter, so nothing but the
// signing path differs):
//   - a v3 keystore decrypted into the server's memory (the baseline);
//   - a SoftHSM2 token (PKCS#11), the key written in by pkcs11-tool as
//     docs/hsm.md moves a keystore's key in;
//   - a remote JSON-RPC signer: anvil itself, whose eth_signTransaction signs
//     for its unlocked dev accounts (every answer checked by the server).
// Each signer gets a fresh automining anvil (blocks do not pace the mints, so
// signing weighs as much as it can) and N concurrent entity mints, each with
// its own Idempotency-Key, after a warm-up; RUNS rounds, the signers' order
// rotating, medians compared. Checked on chain: the signer's nonce moved by
// exactly the mints answered 200. Plus the remote signer's own latency: M
// eth_signTransaction calls of a mint's transaction, one at a time (p50/p99).
// Target: SoftHSM2 ≥ 0.9× the keystore's throughput (issue 36); the remote
// row is reported against the keystore without a target.

import { Agent } from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Interface, Wallet } from 'ethers';
import * as lib from '../lib.mjs';
import { ms, num, progress } from './common.mjs';
import { post } from './mint.mjs';
import { entityBody } from './sustained.mjs';

const N = Number(process.env.ABCICTL_BENCH_SIGNER_MINTS || 200);
const RUNS = Number(process.env.ABCICTL_BENCH_SIGNER_RUNS || 3);
const WARM = 10;
const LATENCY_SAMPLES = 500;
const kModule = '/usr/lib/softhsm/libsofthsm2.so';
const say = (message) => progress('signer', `${message} (load ${loadavg()[0].toFixed(2)})`);

// The machine's `uptime` line, printed with the figures: on the shared
// machine the ratios hold up better than the absolute rates.
const uptimeLine = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

async function keystoreSigner() {
  const dir = lib.tempDir('abcictl-bench-keystore-');
  const password = 'bench keystore password';
  const keystore = join(dir, 'key.json');
  writeFileSync(keystore, await new Wallet(lib.devKeys[0]).encrypt(password), { mode: 0o600 });
  writeFileSync(join(dir, 'password'), `${password}\n`, { mode: 0o600 });
  return { name: 'keystore', toml: `[signer]\nkeystore = "${keystore}"\npasswordFile = "${join(dir, 'password')}"\n`, env: {} };
}

// A token of its own (no root: SOFTHSM2_CONF names its directory) holding anvil's key 0.
function softHsmSigner() {
  const dir = lib.tempDir('abcictl-bench-softhsm-');
  mkdirSync(join(dir, 'tokens'));
  writeFileSync(join(dir, 'softhsm2.conf'), `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  const env = { ...process.env, SOFTHSM2_CONF: join(dir, 'softhsm2.conf') };
  const pin = '246810';
  const quiet = { env, stdio: 'pipe' };  // a failure's error carries the tool's stderr
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', 'bench', '--so-pin', '13579111', '--pin', pin], quiet);
  // SEC 1 ECPrivateKey { 1, secret, [0] secp256k1 }, as docs/hsm.md builds it.
  const der = Buffer.from(`302e0201010420${lib.devKeys[0].slice(2)}a00706052b8104000a`, 'hex');
  writeFileSync(join(dir, 'key.der'), der, { mode: 0o600 });
  execFileSync('openssl', ['ec', '-inform', 'DER', '-in', join(dir, 'key.der'), '-pubout', '-outform', 'DER', '-out', join(dir, 'pub.der')], quiet);
  const tool = ['--module', kModule, '--token-label', 'bench', '--login', '--pin', pin];
  execFileSync('pkcs11-tool', [...tool, '--write-object', join(dir, 'key.der'), '--type', 'privkey', '--label', 'minter', '--id', '01', '--usage-sign'], quiet);
  execFileSync('pkcs11-tool', [...tool, '--write-object', join(dir, 'pub.der'), '--type', 'pubkey', '--label', 'minter', '--id', '01'], quiet);
  writeFileSync(join(dir, 'pin'), `${pin}\n`, { mode: 0o600 });
  return {
    name: 'SoftHSM2',
    toml: `[signer]\npkcs11Module = "${kModule}"\npkcs11Token = "bench"\npkcs11Key = "minter"\npkcs11PinFile = "${join(dir, 'pin')}"\n`,
    env: { SOFTHSM2_CONF: env.SOFTHSM2_CONF },
  };
}

// anvil signs for its dev accounts: the chain's own node is the remote signer.
const remoteSigner = (anvilUrl) => ({ name: 'remote', toml: `[signer]\nremote = "${anvilUrl}"\nremoteAddress = "${lib.devAddresses[0]}"\n`, env: {} });

// One run of `signer` on a fresh chain: mints a second (after the warm-up), checked on chain.
async function throughput(ctx, signerFor, seed) {
  const anvil = await lib.startAnvil();
  let serve = null;
  try {
    const contract = await lib.deployContract(anvil.url);
    const signer = await signerFor(anvil.url);
    serve = await lib.startServe(ctx.abcictl, { anvilUrl: anvil.url, contract, signerToml: signer.toml, env: signer.env });
    const jwt = await lib.loginAdmin(serve);
    const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
    const recipients = lib.randomAddresses(N + WARM, seed);
    const mint = (i) => post(agent, serve.url, '/abci/contracts/mint-entity-token', jwt, entityBody(recipients[i], `S-${seed}-${i}`));
    const warm = await Promise.all(Array.from({ length: WARM }, (_, i) => mint(N + i)));
    if (warm.some((r) => r.status !== 200)) throw new Error(`${signer.name}: warm-up mints answered ${warm.map((r) => r.status).join(' ')}`);
    const before = Number(await lib.rpc(anvil.url, 'eth_getTransactionCount', [lib.devAddresses[0], 'latest']));
    const start = performance.now();
    const answers = await Promise.all(Array.from({ length: N }, (_, i) => mint(i)));
    const seconds = (performance.now() - start) / 1000;
    agent.destroy();
    const failed = answers.filter((r) => r.status !== 200);
    if (failed.length) throw new Error(`${signer.name}: ${failed.length} of ${N} mints failed, e.g. ${failed[0].status} ${failed[0].text}`);
    const after = Number(await lib.rpc(anvil.url, 'eth_getTransactionCount', [lib.devAddresses[0], 'latest']));
    if (after - before !== N) throw new Error(`${signer.name}: ${N} mints answered 200 but the signer's nonce moved by ${after - before}`);
    return N / seconds;
  } finally {
    if (serve) await serve.stop();
    await anvil.stop();
  }
}

// The remote signer's latency alone: eth_signTransaction of a mint as the server sends it, one call at a time.
async function remoteLatency() {
  const anvil = await lib.startAnvil();
  try {
    const contract = await lib.deployContract(anvil.url);
    const data = new Interface(['function mint(address to, uint256 id, uint256 amount, bytes data)'])
      .encodeFunctionData('mint', [lib.devAddresses[5], 1000, 1, '0x']);
    const tx = (nonce) => ({
      from: lib.devAddresses[0], to: contract, data, nonce: `0x${nonce.toString(16)}`, gas: '0x30000',
      maxFeePerGas: '0x77359400', maxPriorityFeePerGas: '0x3b9aca00', chainId: '0x7a69', type: '0x2',
    });
    const samples = [];
    for (let i = 0; i < LATENCY_SAMPLES + 20; ++i) {
      const t = performance.now();
      await lib.rpc(anvil.url, 'eth_signTransaction', [tx(i)]);
      if (i >= 20) samples.push(performance.now() - t);  // the first calls warm the connection and anvil
    }
    return samples;
  } finally {
    await anvil.stop();
  }
}

export default async function signer(ctx) {
  const signers = [['keystore', keystoreSigner], ['SoftHSM2', softHsmSigner], ['remote', remoteSigner]];
  const rates = Object.fromEntries(signers.map(([name]) => [name, []]));
  const loads = [uptimeLine()];
  for (let run = 0; run < RUNS; ++run) {
    for (let k = 0; k < signers.length; ++k) {
      const which = (run + k) % signers.length;  // each signer first in one round
      const [name, make] = signers[which];
      const rate = await throughput(ctx, make, 7300 + run * 10 + which);
      rates[name].push(rate);
      say(`run ${run + 1}/${RUNS}: ${name} ${num(rate, 1)} mints/s`);
    }
  }
  const latency = await remoteLatency();
  loads.push(uptimeLine());
  const p50 = lib.percentile(latency, 50);
  const p99 = lib.percentile(latency, 99);
  say(`remote eth_signTransaction: p50 ${ms(p50)}, p99 ${ms(p99)} over ${latency.length} calls`);
  for (const line of loads) progress('signer', `uptime: ${line}`);

  const median = (name) => lib.median(rates[name]);
  const rate = (name) => `${num(median(name), 1)} mints/s`;
  const raw = { n: N, runs: RUNS, rates, remoteLatencyMs: { p50, p99, samples: latency.length }, uptime: loads };
  const what = `${N} concurrent entity mints, automining anvil, median of ${RUNS} runs`;
  const hsmRatio = median('SoftHSM2') / median('keystore');
  const remoteRatio = median('remote') / median('keystore');
  return [
    { measurement: `signer: mint throughput through a SoftHSM2 token (PKCS#11) vs a keystore (${what})`, ours: rate('SoftHSM2'),
      peer: `keystore: ${rate('keystore')}`, ratio: hsmRatio, target: '≥ 0.9×', met: hsmRatio >= 0.9, raw },
    { measurement: `signer: mint throughput through a remote signer (anvil's eth_signTransaction) vs a keystore (${what}); ` +
        `its signature alone: p50 ${ms(p50)}, p99 ${ms(p99)}`, ours: rate('remote'),
      peer: `keystore: ${rate('keystore')}`, ratio: remoteRatio, target: 'reported', met: true },
  ];
}
