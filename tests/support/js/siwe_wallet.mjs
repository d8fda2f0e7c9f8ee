// A real SIWE wallet client for the tests: the `siwe` package formats the
// EIP-4361 message and an `ethers` wallet signs it with EIP-191.
//
// stdin: one request or an array of them (one node start serves many cases).
//   Sign:  {privateKey, domain, uri, chainId, nonce, issuedAt, expirationTime?,
//           notBefore?, requestId?, statement?, resources?, scheme?, signerKey?}
//          -> {message, signature, address}
//          `signerKey`, when given, signs instead of `privateKey` (whose address
//          the message names): a signature by someone else.
//   Parse: {parse: text} -> {ok: true, fields: {...}} or {ok: false, error}
//          (the `siwe` package's own parser as a second opinion on a text).
// stdout: the answer, or an array of answers in request order.
import { readFileSync } from 'node:fs';
import { SiweMessage } from 'siwe';
import { Wallet } from 'ethers';

async function sign(req) {
  const owner = new Wallet(req.privateKey);
  const message = new SiweMessage({
    scheme: req.scheme,
    domain: req.domain,
    address: owner.address,
    statement: req.statement,
    uri: req.uri,
    version: '1',
    chainId: req.chainId,
    nonce: req.nonce,
    issuedAt: req.issuedAt,
    expirationTime: req.expirationTime,
    notBefore: req.notBefore,
    requestId: req.requestId,
    resources: req.resources,
  }).prepareMessage();
  const signer = req.signerKey ? new Wallet(req.signerKey) : owner;
  return { message, signature: await signer.signMessage(message), address: owner.address };
}

function parse(text) {
  try {
    const m = new SiweMessage(text);
    return { ok: true, fields: { ...m } };
  } catch (e) {
    return { ok: false, error: String(e.message ?? e) };
  }
}

const answer = (req) => ('parse' in req ? parse(req.parse) : sign(req));
const request = JSON.parse(readFileSync(0, 'utf8'));
const result = Array.isArray(request) ? await Promise.all(request.map(answer)) : await answer(request);
process.stdout.write(JSON.stringify(result));
