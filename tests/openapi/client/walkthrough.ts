// The README's walkthrough through a client generated from docs/openapi.yaml
// (openapi-typescript's types, openapi-fetch's client), type-checked by tsc:
// log in, mint a role token with an Idempotency-Key, read the balance, read
// the mint's status by its key. Run by tests/openapi/client/run.sh; prints one
// JSON line of what it read, and exits 1 naming the step a refusal came from.
//
// usage: node walkthrough.js SERVER ADDRESS BLOCKCHAIN_ID
//        (the admin's credentials in ABCI_ADMIN_EMAIL, ABCI_ADMIN_PASSWORD)
import {randomUUID} from 'node:crypto';
import createClient from 'openapi-fetch';
import type {paths} from './schema.js';

const [server, address, blockchainId] = process.argv.slice(2);
if (!server || !address || !blockchainId) {
  console.error('usage: node walkthrough.js SERVER ADDRESS BLOCKCHAIN_ID');
  process.exit(2);
}
const email = process.env.ABCI_ADMIN_EMAIL ?? '';
const password = process.env.ABCI_ADMIN_PASSWORD ?? '';
const client = createClient<paths>({baseUrl: server});

function refused(step: string, error: unknown, response: Response): never {
  console.error(`${step}: ${response.status} ${JSON.stringify(error)}`);
  process.exit(1);
}

const login = await client.POST('/api/auth/login-email-password', {body: {email, password}});
if (!login.data) refused('login', login.error, login.response);
const headers = {Authorization: `Bearer ${login.data.token}`};

const idempotencyKey = `walkthrough-${randomUUID()}`;
const mint = await client.POST('/abci/contracts/mint-role-token', {
  headers,
  params: {header: {'Idempotency-Key': idempotencyKey}},
  body: {userAddress: address, roleType: 'producer', blockchainId},
});
if (!mint.data) refused('mint-role-token', mint.error, mint.response);
// Without `Prefer: respond-async` the answer is the mined token (200), not the queued mint (202).
const minted = mint.data.data;
if (!('tokenId' in minted)) refused('mint-role-token, asked to wait', minted, mint.response);
const tokenId: number = minted.tokenId;

const balance = await client.GET('/abci/contracts/token-balance', {
  headers,
  params: {query: {userAddress: address, tokenId, blockchainId}},
});
if (!balance.data) refused('token-balance', balance.error, balance.response);
// A decimal string: a balance may exceed what a JavaScript number holds exactly.
const held: string = balance.data.data.balance;

const status = await client.GET('/abci/contracts/mints', {headers, params: {query: {idempotencyKey}}});
if (!status.data) refused('mint status', status.error, status.response);

console.log(
  JSON.stringify({
    tokenId,
    transactionHash: minted.transactionHash,
    balance: held,
    state: status.data.data.state,
    statusTransactions: status.data.data.transactions.map((tx) => tx.hash),
  }),
);
