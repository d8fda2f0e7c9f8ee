// A validating proxy in front of `abcictl serve` (the serve suite's openapi
// topology, tests/support/serve.cpp): every request is passed on unchanged
// and its answer passed back unchanged, and each answer is checked against
// docs/openapi.yaml — its status among the operation's responses, its
// content type among that response's, its JSON body valid against that
// schema (JSON Schema 2020-12, the dialect of OpenAPI 3.1, with formats) —
// as is the JSON body of every request the server accepted (2xx). A path no
// operation has must be refused (4xx) with the error envelope. Each mismatch
// is one JSON line in the violations file, which the fixture reads when it
// stops the server.
//
// usage: node openapi_proxy.mjs --port N --target PORT --document openapi.yaml --violations FILE
import {appendFileSync, readFileSync} from 'node:fs';
import http from 'node:http';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import {parse} from 'yaml';

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  if (i < 0 || i + 1 >= args.length) throw new Error(`openapi_proxy.mjs: ${name} is required`);
  return args[i + 1];
};
const port = Number(option('--port'));
const target = Number(option('--target'));
const violationsFile = option('--violations');
const document = parse(readFileSync(option('--document'), 'utf8'), {maxAliasCount: -1});

const ajv = new Ajv2020({strict: false, allErrors: true, validateSchema: false});
addFormats(ajv);
ajv.addSchema(document, 'openapi');

const escapeToken = (token) => encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1'));
const pointerOf = (tokens) => '#/' + tokens.map(escapeToken).join('/');
const validators = new Map();
function validatorAt(tokens) {
  const pointer = pointerOf(tokens);
  if (!validators.has(pointer)) validators.set(pointer, ajv.compile({$ref: 'openapi' + pointer}));
  return validators.get(pointer);
}

// A reference object's target, with the tokens of where it is.
function resolve(tokens, object) {
  while (object && typeof object.$ref === 'string') {
    tokens = object.$ref.replace(/^#\//, '').split('/').map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    object = tokens.reduce((node, t) => node[t], document);
  }
  return [tokens, object];
}

// Concrete paths before templated ones, as the server's routes match.
const operations = Object.entries(document.paths)
  .map(([template, item]) => ({
    template,
    item,
    params: (template.match(/\{/g) || []).length,
    regex: new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
  }))
  .sort((a, b) => a.params - b.params);

function findOperation(method, path) {
  for (const {template, item, regex} of operations) {
    const operation = item[method.toLowerCase()];
    if (operation && regex.test(path)) return {template, operation};
  }
  return null;
}

function violation(entry) {
  appendFileSync(violationsFile, JSON.stringify(entry) + '\n');
}

const mediaType = (value) => (value || '').split(';')[0].trim().toLowerCase();

function checkBody(where, tokens, contentType, body, report) {
  if (mediaType(contentType) !== 'application/json') return;
  let value;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (e) {
    return report({problem: `${where}: not JSON`, body: body.toString('utf8').slice(0, 300)});
  }
  const validate = validatorAt(tokens);
  if (!validate(value)) report({problem: `${where}: does not match ${pointerOf(tokens)}`, errors: validate.errors.slice(0, 8),
                                body: JSON.stringify(value).slice(0, 600)});
}

function check(method, url, requestHeaders, requestBody, status, headers, body) {
  const path = url.split('?')[0];
  const report = (entry) => violation({method, path, status, ...entry});
  const found = findOperation(method, path);
  if (!found) {
    // The catch-alls (the rest of /abci and /api/admin) and what no route
    // answers: refused (404, or the gate's 401, 403, 429, or 400 for a path
    // that is not text) with the error envelope.
    if (status < 400 || status >= 500)
      return report({problem: 'no operation describes this request, and it was not refused'});
    return checkBody('answer', ['components', 'schemas', 'Error'], headers['content-type'], body, report);
  }
  const base = ['paths', found.template, method.toLowerCase()];
  const responses = found.operation.responses || {};
  const key = String(status) in responses ? String(status) : 'default' in responses ? 'default' : null;
  if (!key) return report({problem: `status ${status} is not among the responses of ${found.template}`,
                           body: body.toString('utf8').slice(0, 300)});
  const [responseTokens, response] = resolve([...base, 'responses', key], responses[key]);
  if (response.content && body.length > 0) {
    const type = mediaType(headers['content-type']);
    if (!(type in response.content))
      return report({problem: `content type ${type} is not among the response's (${Object.keys(response.content)})`});
    if (response.content[type].schema)
      checkBody('answer', [...responseTokens, 'content', type, 'schema'], type, body, report);
  } else if (!response.content && body.length > 0 && status !== 304) {
    report({problem: 'the response has a body the document does not describe'});
  }
  // A request the server accepted is one the document allows.
  if (status >= 200 && status < 300 && requestBody.length > 0 && found.operation.requestBody) {
    const [requestTokens, request] = resolve([...base, 'requestBody'], found.operation.requestBody);
    const type = mediaType(requestHeaders['content-type']);
    if (request.content?.[type]?.schema)
      checkBody('accepted request', [...requestTokens, 'content', type, 'schema'], type, requestBody, report);
  }
}

http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const requestBody = Buffer.concat(chunks);
      const upstream = http.request(
        {host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers, agent: false},
        (answer) => {
          const parts = [];
          answer.on('data', (c) => parts.push(c));
          answer.on('end', () => {
            const body = Buffer.concat(parts);
            // Checked before the client has the answer: its test cannot end before the check is written.
            try {
              check(req.method, req.url, req.headers, requestBody, answer.statusCode, answer.headers, body);
            } catch (e) {
              violation({method: req.method, path: req.url, problem: `the proxy failed to check: ${e.stack}`});
            }
            res.writeHead(answer.statusCode, answer.rawHeaders);
            res.end(body);
          });
        },
      );
      // No answer from the server: the client sees the connection fail, as it would without the proxy.
      upstream.on('error', () => res.destroy());
      upstream.end(requestBody);
    });
  })
  .listen(port, '127.0.0.1');
