// A webhook receiver for the tests: every delivery is checked with the
// `standardwebhooks` package (the Standard Webhooks specification's own
// reference library), independently of the server's signing code.
//
// argv[2]: {"port": N}. Deliveries: POST to any path but /_control/*.
// Control (JSON):
//   POST /_control/secrets {secrets: [...]}   the secrets to verify with
//   POST /_control/answers {answers: [...]}   statuses for the next deliveries,
//                                              in order (then 200); "hang":
//                                              answer nothing for 60 s
//   GET  /_control/received                    every delivery so far:
//        {path, id, timestamp, signature, body, answered,
//         verifiedWith: [the indexes of the secrets that verify it]}
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const { port } = JSON.parse(process.argv[2]);
let secrets = [];
let answers = [];
const received = [];

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
      if (req.url === '/_control/received') return reply(res, 200, received);
      const answer = answers.length > 0 ? answers.shift() : 200;
      received.push({
        path: req.url,
        id: req.headers['webhook-id'] ?? null,
        timestamp: req.headers['webhook-timestamp'] ?? null,
        signature: req.headers['webhook-signature'] ?? null,
        body,
        answered: answer,
        verifiedWith: verifiedWith(req.headers, body),
      });
      if (answer === 'hang') return setTimeout(() => reply(res, 200, {}), 60000);
      return reply(res, answer, {});
    });
  })
  .listen(port, '127.0.0.1');
