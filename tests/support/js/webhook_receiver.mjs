// A webhook receiver for the tests: every delivery is checked with the
// `standardwebhooks` package (the Standard Webhooks specification's own
// reference library), independently of the server's signing code.
//
// argv[2]: {"port": N}. Deliveries: POST to any path but /_control/*.
// Control (JSON):
//   POST /_control/secrets {secrets: [...]}   the secrets to verify with
//   POST /_control/answers {answers: [...]}   statuses for the next deliveries,
//                                              in order (then the policy's); "hang":
//                                              answer nothing for hangMs
//   POST /_control/policy {failFirstEvery, failStatus, hangFirst, hangMs, delayMs}
//        when no scripted answer is left: the first attempt of every
//        failFirstEvery-th new webhook-id answers failStatus (500), the
//        hangFirst-th new one hangs, each other delivery answers after
//        delayMs (0: at once; "gone" when the sender left before); hangMs
//        defaults to 60 s
//   GET  /_control/received                    every delivery so far:
//        {path, id, timestamp, signature, body, answered,
//         verifiedWith: [the indexes of the secrets that verify it],
//         hung: true when it hung and the sender waited for the 200,
//         arrivedAt, endedAt: when its request came and when its exchange
//         ended (answered, or the connection closed: ms since the epoch; null
//         while in flight), to find one event delivered twice at once}
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const { port } = JSON.parse(process.argv[2]);
let secrets = [];
let answers = [];
let policy = { failFirstEvery: 0, failStatus: 500, hangFirst: 0, hangMs: 60000, delayMs: 0 };
const received = [];
const seenIds = new Set();
const now = () => performance.timeOrigin + performance.now();

// A delivery's answer when the test scripted none: by the policy.
function byPolicy(id) {
  if (seenIds.has(id)) return 200;
  seenIds.add(id);
  const n = seenIds.size;
  if (n === policy.hangFirst) return 'hang';
  if (policy.failFirstEvery > 0 && n % policy.failFirstEvery === 0) return policy.failStatus;
  return 200;
}

function verifiedWith(headers, body) {
  const indexes = [];
  secrets.forEach((secret, i) => {
    try {
      new Webhook(secret).verify(body, headers, { jsonParse: false });
      indexes.push(i);
    } catch {
      // not signed with this one
    }
  });
  return indexes;
}

function reply(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.url === '/_control/secrets') {
        secrets = JSON.parse(body).secrets;
        return reply(res, 200, {});
      }
      if (req.url === '/_control/answers') {
        answers = JSON.parse(body).answers;
        return reply(res, 200, {});
      }
      if (req.url === '/_control/policy') {
        policy = { ...policy, ...JSON.parse(body) };
        return reply(res, 200, {});
      }
      if (req.url === '/_control/received') return reply(res, 200, received);
      const id = req.headers['webhook-id'] ?? null;
      const answer = answers.length > 0 ? answers.shift() : byPolicy(id);
      const delivery = {
        path: req.url,
        id,
        timestamp: req.headers['webhook-timestamp'] ?? null,
        signature: req.headers['webhook-signature'] ?? null,
        body,
        answered: answer,
        verifiedWith: verifiedWith(req.headers, body),
        arrivedAt: now(),
        endedAt: null,
      };
      received.push(delivery);
      // Answered, or the sender gave up (its timeout, its death): either way the exchange is over.
      res.on('close', () => {
        delivery.endedAt = now();
      });
      // A sender that waited the hang out gets its 200 (answered then says so); one that gave up does not.
      if (answer === 'hang')
        return setTimeout(() => {
          if (res.destroyed) return;
          delivery.answered = 200;
          delivery.hung = true;
          reply(res, 200, {});
        }, policy.hangMs);
      if (policy.delayMs > 0)
        return setTimeout(() => {
          if (res.destroyed) delivery.answered = 'gone';  // the sender left (died) before the answer
          else reply(res, answer, {});
        }, policy.delayMs);
      return reply(res, answer, {});
    });
  })
  .listen(port, '127.0.0.1');
