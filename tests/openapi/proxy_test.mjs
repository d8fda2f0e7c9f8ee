// The validating proxy (tests/support/js/openapi_proxy.mjs) finds what a
// document leaves out: a real `abcictl serve` behind two proxies, one with
// docs/openapi.yaml as it is, one with a copy missing a header the server
// sends, a status it answers and a query parameter it accepts, and wanting a
// header and a parameter it does not have. The same requests through each:
// the real document describes them all, the doctored copy's gaps are each
// reported, and a request the server refused (a 4xx: its test meant it to be
// invalid) is not held to the document.
//
// usage: node proxy_test.mjs ABCICTL
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import {closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import net from 'node:net';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {parse} from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, '..', '..');
const abcictl = process.argv[2];
const work = mkdtempSync(join(tmpdir(), 'openapi-proxy-test-'));
const children = [];

const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const {port} = server.address();
      server.close(() => resolve(port));
    });
  });

async function listening(port, child, log) {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (child.exitCode !== null) break;
    const up = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end(() => resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listens on ${port}; ${log}:\n${existsSync(log) ? readFileSync(log, 'utf8') : ''}`);
}

function start(argv, env, log) {
  const output = openSync(log, 'w');
  const child = spawn(argv[0], argv.slice(1), {env: {...process.env, ...env}, stdio: ['ignore', output, output]});
  closeSync(output);
  children.push({child, exited: new Promise((resolve) => child.on('exit', resolve))});
  return child;
}

async function proxy(name, document, target) {
  const port = await freePort();
  const file = join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify(document));
  const violations = join(work, `${name}.jsonl`);
  const child = start(['node', join(source, 'tests/support/js/openapi_proxy.mjs'), '--port', String(port), '--target',
                       String(target), '--document', file, '--violations', violations], {}, join(work, `${name}.log`));
  await listening(port, child, join(work, `${name}.log`));
  return {url: `http://127.0.0.1:${port}`, violations};
}

const found = (violations) =>
  (existsSync(violations) ? readFileSync(violations, 'utf8').split('\n').filter(Boolean) : [])
    .map((line) => JSON.parse(line))
    .map(({method, path, status, problem}) => `${method} ${path} ${status}: ${problem.split(' does not match ')[0]}`)
    .sort();

// The requests of the test, through one proxy; each answer's status.
async function requests(url) {
  const statuses = [];
  const get = async (path, headers = {}) => {
    const answer = await fetch(url + path, {headers});
    await answer.arrayBuffer();
    statuses.push(answer.status);
    return answer;
  };
  const etag = (await get('/openapi.json')).headers.get('etag');
  await get('/openapi.json', {'If-None-Match': etag});
  const login = await fetch(url + '/api/auth/login-email-password', {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({email: 'admin@example.org', password: 'correct horse battery staple 7'}),
  });
  statuses.push(login.status);
  const bearer = {Authorization: `Bearer ${(await login.json()).token}`};
  await get('/api/admin/audit?limit=5', bearer);
  await get('/api/admin/audit?limit=five', bearer);
  await get('/no/such/route');
  return statuses;
}

try {
  const port = await freePort();
  const serve = start([abcictl, 'serve', '--listen', `127.0.0.1:${port}`, '--data-dir', join(work, 'data')],
                      {ABCI_ADMIN_EMAIL: 'admin@example.org', ABCI_ADMIN_PASSWORD: 'correct horse battery staple 7'},
                      join(work, 'serve.log'));
  await listening(port, serve, join(work, 'serve.log'));

  const real = parse(readFileSync(join(source, 'docs/openapi.yaml'), 'utf8'), {maxAliasCount: -1});
  const doctored = structuredClone(real);
  const documentGet = doctored.paths['/openapi.json'].get;
  const headers = {
    ...documentGet.responses['200'].headers,
    'X-Not-Sent': {required: true, schema: {type: 'string'}},
    ETag: {schema: {type: 'string', pattern: '^W/'}},
  };
  delete headers['X-Request-Id'];
  documentGet.responses['200'].headers = headers;
  delete documentGet.responses['304'];
  const audit = doctored.paths['/api/admin/audit'].get;
  audit.parameters = [{name: 'since', in: 'query', required: true, schema: {type: 'string'}},
                      {name: 'X-Tenant', in: 'header', required: true, schema: {type: 'string'}}];

  const described = await proxy('real', real, port);
  assert.deepEqual(await requests(described.url), [200, 304, 200, 200, 400, 404]);
  const gaps = await proxy('doctored', doctored, port);
  assert.deepEqual(await requests(gaps.url), [200, 304, 200, 200, 400, 404]);

  assert.deepEqual(found(described.violations), []);
  assert.deepEqual(found(gaps.violations), [
    'GET /api/admin/audit 200: the query parameter limit is not among the operation\'s',
    'GET /api/admin/audit 200: the required header parameter X-Tenant is missing',
    'GET /api/admin/audit 200: the required query parameter since is missing',
    'GET /openapi.json 200: header ETag',
    'GET /openapi.json 200: the header x-request-id is not declared',
    'GET /openapi.json 200: the required header X-Not-Sent is missing',
    'GET /openapi.json 304: status 304 is not among the responses of /openapi.json',
  ]);
  console.log('the proxy reported each gap of the doctored document, none of the real one');
} finally {
  for (const {child} of children) child.kill();
  await Promise.all(children.map(({exited}) => exited));
  rmSync(work, {recursive: true, force: true});
}
