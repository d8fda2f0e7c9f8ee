// The crypto section's peer: ethers v6 signing the identical EIP-1559 mint
// transaction, and siwe verifying the identical Sign-In with Ethereum message,
// each timed in a loop for about `seconds` (after a warm-up for the JIT).
//
//   node crypto_peer.mjs SECONDS < inputs.json   (abci_bench_crypto --print-inputs)
//
// Prints JSON: {raw: ethers' signed bytes at the inputs' nonce, signPerSecond,
// siwePerSecond}. Exits 1 when the SIWE message does not verify.

import { readFileSync } from 'node:fs';
import { Wallet } from 'ethers';
import { SiweMessage } from 'siwe';

const seconds = Number(process.argv[2] ?? 2);
const inputs = JSON.parse(readFileSync(0, 'utf8'));
const wallet = new Wallet(inputs.key);
const { mint, siwe } = inputs;

function transaction(nonce) {
  return {
    type: 2,
    chainId: mint.chainId,
    nonce,
    maxPriorityFeePerGas: BigInt(mint.maxPriorityFeePerGas),
    maxFeePerGas: BigInt(mint.maxFeePerGas),
    gasLimit: mint.gasLimit,
    to: mint.to,
    value: 0n,
    data: mint.data,
    accessList: [],
  };
}

async function verifySiwe() {
  // Parsing is part of the work measured, as on our side.
  await new SiweMessage(siwe.message).verify({
    signature: siwe.signature,
    domain: siwe.domain,
    nonce: siwe.nonce,
    time: siwe.time,
  });
}

// Operations per second of `op(i)` over about `ms` milliseconds.
async function rate(op, ms) {
  const end = performance.now() + ms;
  let count = 0;
  const start = performance.now();
  while (performance.now() < end) await op(count++);
  return count / ((performance.now() - start) / 1000);
}

const raw = await wallet.signTransaction(transaction(mint.nonce));
await rate((i) => wallet.signTransaction(transaction(mint.nonce + i)), 300);
const signPerSecond = await rate((i) => wallet.signTransaction(transaction(mint.nonce + i)), seconds * 1000);
await rate(verifySiwe, 300);
const siwePerSecond = await rate(verifySiwe, seconds * 1000);
process.stdout.write(JSON.stringify({ raw, signPerSecond, siwePerSecond }) + '\n');
