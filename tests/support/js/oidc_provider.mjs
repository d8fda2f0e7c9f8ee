// A real OpenID provider (oidc-provider 9) on loopback for the OIDC tests,
// driven by tests/support/oidc_provider.cpp.
//
//   node oidc_provider.mjs '<config JSON>'
//   config: { port, issuer, user: { sub, email },
//             clients: [{ client_id, client_secret?, redirect_uris, alg }] }
//   A client without a secret is public (token_endpoint_auth_method "none");
//   `alg` ("RS256" or "ES256") is the client's id_token_signed_response_alg.
//
// Logging in needs no browser: the interaction URL is served here and
// finishes at once, logging in config.user and granting the requested
// scopes, so following the redirects with a cookie jar yields the code.
//
// Test-only endpoints (this is a test fixture, never a real provider):
//   POST /test/sign { header, payload, key } → compact JWS text, where key is
//        "rsa" | "ec" (the provider's own signing keys), "encryption-rsa" (in
//        the JWKS with use "enc", signing RS256 anyway), "stranger-rsa" |
//        "stranger-ec" (keys not in the JWKS), "hmac-rsa-public" (HS256 keyed
//        with the provider's RSA public key PEM, the classic alg confusion) or
//        "none" (empty signature). The header is taken as given; a header or
//        payload that is a string is the JSON text itself (a member named twice).
//   GET  /test/keys  → { rsa_kid, ec_kid }
//   GET  /test/stats → { jwks_requests }

import crypto from 'node:crypto';
import http from 'node:http';
import { promisify } from 'node:util';
import Provider from 'oidc-provider';

const config = JSON.parse(process.argv[2]);

const generateKeyPair = promisify(crypto.generateKeyPair);

async function generateKey(type, kid, use = 'sig') {
  const { privateKey } = type === 'rsa'
    ? await generateKeyPair('rsa', { modulusLength: 2048 })
    : await generateKeyPair('ec', { namedCurve: 'P-256' });
  const alg = type === 'rsa' ? 'RS256' : 'ES256';
  const jwkAlg = use === 'sig' ? alg : 'RSA-OAEP';
  return { privateKey, alg, jwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: jwkAlg, use } };
}

// Generated in parallel (libuv's thread pool): RSA key generation is most of the start-up time.
const keyList = await Promise.all([
  generateKey('rsa', `rsa-${crypto.randomUUID()}`),
  generateKey('ec', `ec-${crypto.randomUUID()}`),
  // In the JWKS, but for encryption: must never verify a signature.
  generateKey('rsa', 'encryption-rsa', 'enc'),
  generateKey('rsa', 'stranger-rsa'),
  generateKey('ec', 'stranger-ec'),
]);
const keys = Object.fromEntries(
  ['rsa', 'ec', 'encryption-rsa', 'stranger-rsa', 'stranger-ec'].map((name, i) => [name, keyList[i]]),
);

const provider = new Provider(config.issuer, {
  clients: config.clients.map((c) => ({
    client_id: c.client_id,
    ...(c.client_secret
      ? { client_secret: c.client_secret, token_endpoint_auth_method: 'client_secret_basic' }
      : { token_endpoint_auth_method: 'none' }),
    redirect_uris: c.redirect_uris,
    response_types: ['code'],
    grant_types: ['authorization_code'],
    id_token_signed_response_alg: c.alg,
  })),
  jwks: { keys: [keys.rsa.jwk, keys.ec.jwk, keys['encryption-rsa'].jwk] },
  pkce: { required: () => true },
  cookies: { keys: [crypto.randomBytes(32).toString('hex')] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  // The scope's claims go into the ID token too, not only to userinfo: the
  // relying party under test reads the email from the ID token.
  conformIdTokenClaims: false,
  ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
  // Encryption is on only so that the JWKS may hold the "enc" key.
  features: { devInteractions: { enabled: false }, encryption: { enabled: true } },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  async findAccount(ctx, sub) {
    if (sub !== config.user.sub) return undefined;
    return {
      accountId: sub,
      async claims() {
        return { sub, email: config.user.email, email_verified: true, name: 'Test User' };
      },
    };
  },
});

// Logs config.user in and grants every scope the client asked for.
async function finishInteraction(req, res) {
  const { params, grantId } = await provider.interactionDetails(req, res);
  const accountId = config.user.sub;
  const grant = (grantId && (await provider.Grant.find(grantId)))
    || new provider.Grant({ accountId, clientId: params.client_id });
  grant.addOIDCScope(params.scope);
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId }, consent: { grantId: await grant.save() } },
    { mergeWithLastSubmission: false },
  );
}

const b64url = (data) => Buffer.from(data).toString('base64url');
const jsonText = (value) => (typeof value === 'string' ? value : JSON.stringify(value));

function sign({ header, payload, key }) {
  const input = `${b64url(jsonText(header))}.${b64url(jsonText(payload))}`;
  let signature;
  if (key === 'none') {
    signature = Buffer.alloc(0);
  } else if (key === 'hmac-rsa-public') {
    const pem = crypto.createPublicKey(keys.rsa.privateKey).export({ type: 'spki', format: 'pem' });
    signature = crypto.createHmac('sha256', pem).update(input).digest();
  } else if (keys[key]) {
    const k = keys[key];
    signature = crypto.sign('sha256', Buffer.from(input), k.alg === 'ES256'
      ? { key: k.privateKey, dsaEncoding: 'ieee-p1363' }
      : k.privateKey);
  } else {
    throw new Error(`unknown key ${key}`);
  }
  return `${input}.${b64url(signature)}`;
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

function send(res, status, type, body) {
  res.writeHead(status, { 'Content-Type': type });
  res.end(body);
}

let jwksRequests = 0;
const providerCallback = provider.callback();

http.createServer(async (req, res) => {
  try {
    const { pathname } = new URL(req.url, config.issuer);
    if (pathname.startsWith('/interaction/')) return await finishInteraction(req, res);
    if (pathname === '/test/sign' && req.method === 'POST') {
      return send(res, 200, 'application/jwt', sign(JSON.parse(await readBody(req))));
    }
    if (pathname === '/test/keys') {
      return send(res, 200, 'application/json', JSON.stringify({ rsa_kid: keys.rsa.jwk.kid, ec_kid: keys.ec.jwk.kid }));
    }
    if (pathname === '/test/stats') {
      return send(res, 200, 'application/json', JSON.stringify({ jwks_requests: jwksRequests }));
    }
    if (pathname === '/jwks') jwksRequests += 1;
    return providerCallback(req, res);
  } catch (err) {
    console.error(err);
    return send(res, 500, 'text/plain', String(err));
  }
}).listen(config.port, '127.0.0.1', () => {
  console.log(`oidc-provider ${config.issuer} listening`);
});
