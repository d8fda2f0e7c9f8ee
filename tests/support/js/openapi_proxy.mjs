// A validating proxy in front of `abcictl serve` (the serve suite's openapi
// topology, tests/support/serve.cpp): every request is passed on unchanged
// and its answer passed back unchanged, and each answer is checked against
// docs/openapi.yaml — its status among the operation's responses, its
// headers (each the response declares required present, each declared one
// present valid against its schema, none it does not declare but HTTP's
// own: framing, connection, date, server), its content type among that
// response's, its JSON body valid against that schema (JSON Schema 2020-12,
// the dialect of OpenAPI 3.1, with formats). A request the server did not
// refuse (any status but 4xx) must be one the operation allows: its query
// parameters each declared, the required ones present, each path, query and
// header parameter and its JSON body valid against their schemas. A request
// the server refused with a 4xx is one its test meant to be invalid: then
// only the refusal is checked (its status and error envelope). A path no
// operation has must be refused (4xx) with the error envelope, as may any
// request by the connection layer (the document's x-connection-refusals).
// Each mismatch is one JSON line in the violations file, which the fixture
// reads when it stops the server.
//
// usage: node openapi_proxy.mjs --port N --target PORT --document openapi.yaml --violations FILE [--cache DIR]
//        [--answers DIR]
import {createHash} from 'node:crypto';
import {appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs';
import http from 'node:http';
import {brotliDecompressSync, gunzipSync, inflateSync} from 'node:zlib';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import {membersOf, pointerOf} from './openapi_members.mjs';

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  if (i < 0 || i + 1 >= args.length) throw new Error(`openapi_proxy.mjs: ${name} is required`);
  return args[i + 1];
};
const port = Number(option('--port'));
const target = Number(option('--target'));
const violationsFile = option('--violations');

// The YAML parser takes most of a second of a core for the document, and a
// proxy starts with every server of the suite: with --cache DIR, it is parsed
// once per version of the document and read back as JSON.
async function load(file) {
  const text = readFileSync(file, 'utf8');
  const parse = async () => (await import('yaml')).parse(text, {maxAliasCount: -1});
  const i = args.indexOf('--cache');
  if (i < 0) return parse();
  const cached = `${args[i + 1]}/openapi-${createHash('sha256').update(text).digest('hex')}.json`;
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8'));
  const document = await parse();
  mkdirSync(args[i + 1], {recursive: true});
  writeFileSync(`${cached}.${process.pid}`, JSON.stringify(document));
  renameSync(`${cached}.${process.pid}`, cached);
  return document;
}
const document = await load(option('--document'));

const ajv = new Ajv2020({strict: false, allErrors: true, validateSchema: false});
addFormats(ajv);
ajv.addSchema(document, 'openapi');
// Parameters and headers are text: this one coerces "5" to the 5 an integer schema wants.
const textAjv = new Ajv2020({strict: false, allErrors: true, validateSchema: false, coerceTypes: true});
addFormats(textAjv);
textAjv.addSchema(document, 'openapi');

const validators = new Map();
function validatorAt(tokens) {
  const pointer = pointerOf(tokens);
  if (!validators.has(pointer)) validators.set(pointer, ajv.compile({$ref: 'openapi' + pointer}));
  return validators.get(pointer);
}
const textValidators = new Map();
function textValidatorAt(tokens) {
  const pointer = pointerOf(tokens);
  if (!textValidators.has(pointer))
    textValidators.set(pointer, textAjv.compile({type: 'object', properties: {value: {$ref: 'openapi' + pointer}}}));
  return textValidators.get(pointer);
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
    names: [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
    regex: new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)') + '$'),
  }))
  .sort((a, b) => a.params - b.params);

function findOperation(method, path) {
  for (const {template, item, names, regex} of operations) {
    const operation = item[method.toLowerCase()];
    const match = operation && regex.exec(path);
    if (match) {
      const pathValues = Object.fromEntries(names.map((name, i) => [name, match[i + 1]]));
      return {template, item, operation, method: method.toLowerCase(), pathValues};
    }
  }
  return null;
}

// With --answers DIR, the member set of each JSON answer whose response
// shows an example, for tests/openapi/examples_test.mjs to hold the examples to.
const answersAt = args.includes('--answers') ? option('--answers') : null;
if (answersAt) mkdirSync(answersAt, {recursive: true});
function recordMembers(mediaTokens, type, body) {
  if (!answersAt || type !== 'application/json') return;
  let value;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (e) {
    return;  // checkBody reported it
  }
  const entry = {mediaType: pointerOf(mediaTokens), members: membersOf(value)};
  appendFileSync(`${answersAt}/${process.pid}.jsonl`, JSON.stringify(entry) + '\n');
}

// With --answers DIR, also how many exchanges this proxy checked (DIR/PID.count), which examples_test.mjs adds up.
let checked = 0;
function tally() {
  if (answersAt) writeFileSync(`${answersAt}/${process.pid}.count`, String(++checked));
}

function violation(entry) {
  appendFileSync(violationsFile, JSON.stringify(entry) + '\n');
}

const mediaType = (value) => (value || '').split(';')[0].trim().toLowerCase();

// A body as sent, before its Content-Encoding (the server compresses for a client that accepts it).
function decoded(encoding, body) {
  switch ((encoding || 'identity').trim().toLowerCase()) {
    case 'gzip': return gunzipSync(body);
    case 'deflate': return inflateSync(body);
    case 'br': return brotliDecompressSync(body);
    default: return body;
  }
}

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

function checkText(where, tokens, text, report) {
  const validate = textValidatorAt(tokens);
  if (!validate({value: text}))
    report({problem: `${where} does not match ${pointerOf(tokens)}`, value: text, errors: validate.errors.slice(0, 8)});
}

// HTTP's own fields, on any answer of any server: the body's framing and
// coding, the connection, the date and the software. A document describes
// the rest; Content-Type is its content map's (OpenAPI ignores a header entry for it).
const httpFields = new Set(['content-type', 'content-length', 'content-encoding', 'transfer-encoding', 'connection',
                            'keep-alive', 'date', 'server']);

// The headers a response declares, and that it sends no other.
function checkHeaders(responseTokens, response, headers, report) {
  const declaredNames = new Set(Object.keys(response.headers || {}).map((name) => name.toLowerCase()));
  for (const name of Object.keys(headers))
    if (!httpFields.has(name) && !declaredNames.has(name)) report({problem: `the header ${name} is not declared`});
  for (const [name, declared] of Object.entries(response.headers || {})) {
    if (name.toLowerCase() === 'content-type') continue;
    const [tokens, header] = resolve([...responseTokens, 'headers', name], declared);
    const value = headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required) report({problem: `the required header ${name} is missing`});
    } else if (header.schema) {
      checkText(`header ${name}`, [...tokens, 'schema'], value, report);
    }
  }
}

// The operation's parameters with the path item's it does not override, each with the tokens of where it is.
function parametersOf(found) {
  const byKey = new Map();
  const add = (owner, list) =>
    (list || []).forEach((declared, i) => {
      const [tokens, parameter] = resolve([...owner, 'parameters', String(i)], declared);
      const name = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
      byKey.set(`${parameter.in}:${name}`, {tokens, parameter});
    });
  add(['paths', found.template], found.item.parameters);
  add(['paths', found.template, found.method], found.operation.parameters);
  return byKey;
}

// A request the server did not refuse is one the document allows.
function checkRequest(found, url, requestHeaders, requestBody, report) {
  const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  const parameters = parametersOf(found);
  for (const name of new Set(query.keys()))
    if (!parameters.has(`query:${name}`)) report({problem: `the query parameter ${name} is not among the operation's`});
  for (const {tokens, parameter} of parameters.values()) {
    let value;
    if (parameter.in === 'path') {
      try {
        value = decodeURIComponent(found.pathValues[parameter.name]);
      } catch (e) {
        value = found.pathValues[parameter.name];
      }
    } else if (parameter.in === 'query') {
      value = query.has(parameter.name) ? query.get(parameter.name) : undefined;
    } else if (parameter.in === 'header') {
      value = requestHeaders[parameter.name.toLowerCase()];
    } else {
      continue;
    }
    if (value === undefined) {
      if (parameter.required) report({problem: `the required ${parameter.in} parameter ${parameter.name} is missing`});
    } else if (parameter.schema) {
      checkText(`the ${parameter.in} parameter ${parameter.name}`, [...tokens, 'schema'], value, report);
    }
  }
  if (requestBody.length > 0 && found.operation.requestBody) {
    const [requestTokens, request] = resolve(['paths', found.template, found.method, 'requestBody'], found.operation.requestBody);
    const type = mediaType(requestHeaders['content-type']);
    if (request.content?.[type]?.schema)
      checkBody('accepted request', [...requestTokens, 'content', type, 'schema'], type, requestBody, report);
  }
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
  const responses = found.operation.responses || {};
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
  if (!key && (document['x-connection-refusals'] || []).includes(String(status)))
    return checkBody('answer', ['components', 'schemas', 'Error'], headers['content-type'], body, report);
  if (!key) return report({problem: `status ${status} is not among the responses of ${found.template}`,
                           body: body.toString('utf8').slice(0, 300)});
  const [responseTokens, response] = resolve(['paths', found.template, found.method, 'responses', key], responses[key]);
  checkHeaders(responseTokens, response, headers, report);
  if (response.content && body.length > 0) {
    const type = mediaType(headers['content-type']);
    if (!(type in response.content))
      return report({problem: `content type ${type} is not among the response's (${Object.keys(response.content)})`});
    if (response.content[type].schema)
      checkBody('answer', [...responseTokens, 'content', type, 'schema'], type, body, report);
    if ('example' in response.content[type]) recordMembers([...responseTokens, 'content', type], type, body);
  } else if (!response.content && body.length > 0 && status !== 304) {
    report({problem: 'the response has a body the document does not describe'});
  }
  // A 4xx refused the request: its test meant it to be invalid.
  if (status < 400 || status >= 500) checkRequest(found, url, requestHeaders, requestBody, report);
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
              check(req.method, req.url, req.headers, decoded(req.headers['content-encoding'], requestBody),
                    answer.statusCode, answer.headers, decoded(answer.headers['content-encoding'], body));
            } catch (e) {
              violation({method: req.method, path: req.url, problem: `the proxy failed to check: ${e.stack}`});
            }
            tally();
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
