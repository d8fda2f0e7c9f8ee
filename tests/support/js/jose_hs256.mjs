// The `jose` package as an independent JWT implementation for the tests.
//
// stdin: an array of requests (one node start serves many cases), each with
// `secretHex` (the HMAC key as hex) and one of:
//   Verify: {verify: token, issuer, audience, now}   (now in epoch seconds)
//           -> {ok: true, header, payload} or {ok: false, error}
//           jose checks alg HS256 only, typ "at+jwt", iss, aud, exp and nbf.
//   Sign:   {sign: claims, header}  -> {token}
//           SignJWT with exactly `header` as the protected header.
// stdout: the array of answers, in request order.
import { readFileSync } from 'node:fs';
import { jwtVerify, SignJWT } from 'jose';

async function answer(req) {
  const secret = Uint8Array.from(Buffer.from(req.secretHex, 'hex'));
  if (req.sign !== undefined) {
    return { token: await new SignJWT(req.sign).setProtectedHeader(req.header).sign(secret) };
  }
  try {
    const { payload, protectedHeader } = await jwtVerify(req.verify, secret, {
      algorithms: ['HS256'],
      typ: 'at+jwt',
      issuer: req.issuer,
      audience: req.audience,
      currentDate: new Date(req.now * 1000),
      requiredClaims: ['exp', 'nbf', 'iat', 'jti', 'sub'],
    });
    return { ok: true, header: protectedHeader, payload };
  } catch (e) {
    return { ok: false, error: e.code ?? String(e) };
  }
}

const requests = JSON.parse(readFileSync(0, 'utf8'));
const answers = [];
for (const req of requests) answers.push(await answer(req));
process.stdout.write(JSON.stringify(answers));
