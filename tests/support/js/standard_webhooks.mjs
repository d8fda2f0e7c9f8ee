// The `standardwebhooks` package (the Standard Webhooks specification's own
// reference library) as an independent verifier of what the server signs.
//
// stdin: an array of requests (one node start serves many cases), each
//   {secret, headers: {webhook-id, webhook-timestamp, webhook-signature}, body}
//   -> {ok: true} when Webhook(secret).verify(body, headers) accepts them,
//      {ok: false, error} when it refuses (bad signature, old timestamp, …)
//   {secret, sign: {id, timestamp, body}} -> {signature}: the library's own
//      signature, for the opposite direction.
// stdout: the array of answers, in request order.
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';

function answer(req) {
  const webhook = new Webhook(req.secret);
  if (req.sign !== undefined) {
    return { signature: webhook.sign(req.sign.id, new Date(req.sign.timestamp * 1000), req.sign.body) };
  }
  try {
    webhook.verify(req.body, req.headers, { jsonParse: false });
    return { ok: true };
  } catch (e) {
    return { ok: false, error: e.message };
  }
}

const requests = JSON.parse(readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(requests.map(answer)));
