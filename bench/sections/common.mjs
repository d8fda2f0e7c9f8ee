// Helpers the benchmark sections share: running a tool to completion (killed
// if the benchmark exits first), a terminal-like home for abcictl's client
// commands, the anvil + contract + serve stack, and the table's number formats.

import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as lib from '../lib.mjs';

/** Progress on stderr (stdout carries only the table). */
export function progress(section, message) {
  process.stderr.write(`bench ${section}: ${message}\n`);
}

/**
 * Runs `argv` to completion; resolves {code, stdout, stderr, ms} (wall time in
 * milliseconds from spawn to exit). Rejects when it cannot start, or exits
 * non-zero unless `allowFailure`. The child is killed if the benchmark exits
 * while it runs.
 */
export function run(argv, { input = null, env = {}, allowFailure = false } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(argv[0], argv.slice(1), {
      env: { ...process.env, ...env },
      stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let alive = true;
    lib.cleanupOnExit(() => alive && child.kill('SIGKILL'));
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    if (input !== null) child.stdin.end(input);
    child.once('error', (e) => {
      alive = false;
      reject(e);
    });
    child.once('close', (code, signal) => {
      alive = false;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const result = { code: code ?? 128, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), ms };
      if (result.code !== 0 && !allowFailure)
        reject(new Error(`${argv.join(' ')} exited with ${code ?? signal}:\n${result.stderr}${result.stdout}`));
      else resolve(result);
    });
  });
}

/** `cast ARGS...`'s trimmed stdout (rejects unless it exits 0). */
export async function cast(...args) {
  return (await run([lib.tool('cast'), ...args])).stdout.trim();
}

/**
 * A fresh home for abcictl's client commands, talking to `serverUrl`: its
 * config, state (sessions, the chain cache) in a temporary directory. Returns
 * the environment to run abcictl with.
 */
export function clientEnv(serverUrl) {
  const home = lib.tempDir('abcictl-bench-home-');
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_STATE_HOME: join(home, 'state'),
    ABCICTL_SERVER: serverUrl,
    NO_COLOR: '1',
  };
  mkdirSync(env.XDG_CONFIG_HOME);
  mkdirSync(env.XDG_STATE_HOME);
  return env;
}

/** `abcictl login` as the bench admin (password on stdin) in `env`. */
export async function loginCli(abcictl, env) {
  await run([abcictl, 'login', '--email', lib.adminEmail, '--password-stdin'], { input: `${lib.adminPassword}\n`, env });
}

/**
 * Runs `fn({anvil, contract, serve})` with a fresh anvil (automine, or a
 * block every `blockTime` s), ABCIToken deployed on it and `abcictl serve` in
 * front (`env` added to its environment); `beforeServe({anvil, contract})` runs before the server starts (for
 * transactions of anvil's key 0, which the server signs with afterwards).
 * Both processes are stopped when `fn` settles.
 */
export async function withChainServer(ctx, { blockTime = null, extraToml = '', env = {}, beforeServe = null }, fn) {
  const anvil = await lib.startAnvil({ blockTime });
  let serve = null;
  try {
    const contract = await lib.deployContract(anvil.url);
    if (beforeServe) await beforeServe({ anvil, contract });
    serve = await lib.startServe(ctx.abcictl, { anvilUrl: anvil.url, contract, extraToml, env });
    return await fn({ anvil, contract, serve });
  } finally {
    if (serve) await serve.stop();
    await anvil.stop();
  }
}

/** The producer role's token id (spec 2.2), the role both sides mint. */
export const producerTokenId = 10000;

/** "12,345" (no decimals) or with `digits` decimals. */
export function num(value, digits = 0) {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Milliseconds with a precision that fits their size: "0.42 ms", "3.1 ms", "180 ms". */
export function ms(value) {
  return `${num(value, value < 1 ? 2 : value < 10 ? 1 : 0)} ms`;
}

/** A row where `ours` should be at least `target` × `peer` (throughputs). */
export function atLeast(measurement, ours, peer, oursText, peerText, target, raw = {}) {
  const ratio = ours / peer;
  return { measurement, ours: oursText, peer: peerText, ratio, target: `≥ ${target}×`, met: ratio >= target, raw };
}

/** A row where `ours` should be at most `target` × `peer` (times, memory). */
export function atMost(measurement, ours, peer, oursText, peerText, target, raw = {}) {
  const ratio = ours / peer;
  return { measurement, ours: oursText, peer: peerText, ratio, target: `≤ ${target.toFixed(1)}×`, met: ratio <= target, raw };
}

/** The CPU time process `pid` has used, in milliseconds (utime + stime, in clock ticks of 10 ms). */
export function cpuMillis(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
