// What every benchmark section needs to stand up: a real anvil, the ABCIToken
// contract, a real `abcictl serve` in front of it, an admin session and users
// with linked wallets. Every process started here is stopped when the
// benchmark exits, also on Ctrl-C or an error.

import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, openSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContractFactory, JsonRpcProvider, Wallet, getAddress, keccak256, toUtf8Bytes } from 'ethers';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Path of an npm-installed tool (anvil, cast). */
export function tool(name) {
  return join(root, 'node_modules', '.bin', name);
}

// anvil's default mnemonic ("test test ... junk"), accounts 0-9.
export const devKeys = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
];
export const devAddresses = devKeys.map((k) => new Wallet(k).address);

export const adminEmail = 'admin@example.org';
export const adminPassword = 'bench admin password 7';

const cleanups = [];
/** Registers `fn` to run (last registered first) when the process exits. */
export function cleanupOnExit(fn) {
  cleanups.push(fn);
}
function runCleanups() {
  while (cleanups.length) {
    try {
      cleanups.pop()();
    } catch {
      // best effort: the others still run
    }
  }
}
process.on('exit', runCleanups);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    runCleanups();
    process.exit(130);
  });
}

/** A fresh temporary directory, removed on exit. */
export function tempDir(prefix = 'abcictl-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // ABCICTL_BENCH_KEEP=1 keeps them (logs, data directories) for a look afterwards.
  if (!process.env.ABCICTL_BENCH_KEEP) cleanupOnExit(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A loopback port free right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts connections on 127.0.0.1:port; rejects after `ms`. */
export async function waitForPort(port, ms = 20000, child = null) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`process exited with ${child.exitCode} before listening`);
    const ok = await new Promise((resolve) => {
      const socket = new Socket();
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
      socket.connect(port, '127.0.0.1');
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`nothing listens on port ${port} after ${ms} ms`);
}
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Starts `argv` with its output in `log`; stopped (SIGTERM, then SIGKILL) on exit.
function startProcess(argv, { log, env = {} }) {
  const out = openSync(log, 'a');
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', out, out], env: { ...process.env, ...env } });
  const stop = () => {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  };
  cleanupOnExit(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, stop };
}

/**
 * A real anvil on a free loopback port: automine, or a block every
 * `blockTime` seconds. Returns {url, port, stop()}.
 */
export async function startAnvil({ blockTime = null, gasLimit = null } = {}) {
  const dir = tempDir('abcictl-bench-anvil-');
  for (let attempt = 0; ; ++attempt) {
    const port = await freePort();
    const argv = [tool('anvil'), '--host', '127.0.0.1', '--port', String(port), '--silent'];
    if (blockTime !== null) argv.push('--block-time', String(blockTime));
    if (gasLimit !== null) argv.push('--gas-limit', String(gasLimit));
    const { child, stop } = startProcess(argv, { log: join(dir, 'anvil.log') });
    try {
      await waitForPort(port, 20000, child);
      return { url: `http://127.0.0.1:${port}`, port, stop };
    } catch (e) {
      await stop();
      if (attempt >= 2) throw e;
    }
  }
}

/** A JSON-RPC call to the node at `url`: its result; throws the node's error. */
export async function rpc(url, method, params = []) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await r.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

/** Resolves just after the node at `url` has mined a new block. */
export async function nextBlock(url) {
  const start = await rpc(url, 'eth_blockNumber');
  for (;;) {
    await sleep(5);
    if ((await rpc(url, 'eth_blockNumber')) !== start) return;
  }
}

const artifact = JSON.parse(readFileSync(join(root, 'contracts', 'build', 'ABCIToken.json'), 'utf8'));
export const tokenAbi = artifact.abi;

/** Deploys ABCIToken from dev account 0 (its admin and minter) and returns its address. */
export async function deployContract(anvilUrl) {
  const provider = new JsonRpcProvider(anvilUrl, undefined, { staticNetwork: true, pollingInterval: 50 });
  const wallet = new Wallet(devKeys[0], provider);
  const factory = new ContractFactory(artifact.abi, artifact.bytecode, wallet);
  const token = await factory.deploy(wallet.address, 'ipfs://');
  await token.waitForDeployment();
  const address = await token.getAddress();
  provider.destroy();
  return getAddress(address);
}

/** MINTER_ROLE's id, as the contract defines it. */
export const minterRole = keccak256(toUtf8Bytes('MINTER_ROLE'));

/**
 * A real `abcictl serve` on a free loopback port, for one chain (id "devnet")
 * signed by anvil's key 0, rate limit off, and admin@example.org as admin.
 * `extraToml` is appended to the config; `env` is added to its environment
 * (ABCI_DATABASE_URL); `signerToml` replaces the [signer] table (a keystore,
 * a token, a remote signer). Given the `dir` and `port` of one that was stopped or
 * killed, starts it again there, with its data directory.
 * Returns {url, port, dir, dataDir, pid, child, stop()}.
 */
export async function startServe(abcictl, { anvilUrl, contract, extraToml = '', signerToml = '[signer]\nanvilKey = true\n', env: extraEnv = {}, dir: reuse = null, port: fixedPort = null }) {
  const dir = reuse ?? tempDir('abcictl-bench-serve-');
  const dataDir = join(dir, 'data');
  const config = join(dir, 'config.toml');
  writeFileSync(
    config,
    `[rate_limit]
abci = "0"
${signerToml}
[[chains]]
id = "devnet"
name = "Anvil devnet"
chainId = 31337
network = "ethereum"
rpcUrls = ["${anvilUrl}"]
contractAddress = "${contract}"
status = "testnet"
${extraToml}
`,
    { mode: 0o600 },
  );
  const env = { ABCI_ADMIN_EMAIL: adminEmail, ABCI_ADMIN_PASSWORD: adminPassword, ...extraEnv };
  for (let attempt = 0; ; ++attempt) {
    const port = fixedPort ?? (await freePort());
    const argv = [abcictl, 'serve', '--listen', `127.0.0.1:${port}`, '--data-dir', dataDir, '--config', config];
    const { child, stop } = startProcess(argv, { log: join(dir, 'serve.log'), env });
    try {
      await waitForPort(port, 30000, child);
      return { url: `http://127.0.0.1:${port}`, port, dir, dataDir, pid: child.pid, child, log: join(dir, 'serve.log'), stop };
    } catch (e) {
      await stop();
      if (attempt >= 2 || fixedPort) throw new Error(`${e.message}; serve log:\n${readFileSync(join(dir, 'serve.log'), 'utf8')}`);
    }
  }
}

/** Logs the admin in with e-mail and password; returns the access token (JWT). */
export async function loginAdmin(serve) {
  const r = await fetch(`${serve.url}/api/auth/login-email-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: adminEmail, password: adminPassword }),
  });
  if (r.status !== 200) throw new Error(`admin login: ${r.status} ${await r.text()}`);
  return (await r.json()).token;
}

/**
 * Creates a farmer user (no password) for each address, its wallet linked;
 * `env` added to abcictl's environment (ABCI_DATABASE_URL).
 */
export function addWalletUsers(abcictl, dataDir, addresses, env = {}) {
  const lines = addresses.map((a, i) => JSON.stringify({ email: `wallet-${i}-${a.slice(2, 10).toLowerCase()}@bench.example`, role: 'farmer', wallet: a }));
  execFileSync(abcictl, ['admin', 'user', 'import', '--data-dir', dataDir, '-'], { input: lines.join('\n') + '\n', stdio: ['pipe', 'ignore', 'inherit'], env: { ...process.env, ...env } });
}

/** `n` distinct checksummed addresses, the same for the same seed. */
export function randomAddresses(n, seed = 1) {
  const out = [];
  for (let i = 0; i < n; ++i) out.push(getAddress('0x' + keccak256(toUtf8Bytes(`bench-${seed}-${i}`)).slice(26)));
  return out;
}

/** The p-th percentile (0-100) of `values` (nearest rank). */
export function percentile(values, p) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The median of `values`. */
export const median = (values) => percentile(values, 50);
