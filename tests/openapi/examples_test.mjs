// The answers docs/openapi.yaml shows are ones the server gives: each
// response example has the member set (every member's path, nested objects
// and array items included) of at least one real answer that the serve and
// cli suites' requests got through the validating proxy, which records them
// (openapi_proxy.mjs --answers). That each example is valid against its
// schema is Redocly's check (no-invalid-media-type-examples). An example no
// test's answer reached (a subset of the suite was run) is named, not failed.
// Also says how many requests and answers the proxies checked in the run.
//
// usage: node examples_test.mjs openapi.yaml ANSWERS_DIR
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {parse} from 'yaml';
import {membersOf, pointerOf} from '../support/js/openapi_members.mjs';

const [file, answersDir] = process.argv.slice(2);
const document = parse(readFileSync(file, 'utf8'), {maxAliasCount: -1});

// Each response media type's example, by the pointer of its media type object.
const examples = new Map();
function walk(node, tokens) {
  if (!node || typeof node !== 'object') return;
  const i = tokens.lastIndexOf('responses');
  if (i >= 0 && tokens.length === i + 4 && tokens[i + 2] === 'content' && 'example' in node)
    examples.set(pointerOf(tokens), node.example);
  for (const [key, value] of Object.entries(node)) walk(value, [...tokens, key]);
}
walk(document, []);

const seen = new Map();
const files = existsSync(answersDir) ? readdirSync(answersDir) : [];
for (const name of files.filter((n) => n.endsWith('.jsonl')))
  for (const line of readFileSync(join(answersDir, name), 'utf8').split('\n').filter(Boolean)) {
    const {mediaType, members} = JSON.parse(line);
    if (!seen.has(mediaType)) seen.set(mediaType, new Set());
    seen.get(mediaType).add(JSON.stringify(members));
  }

let failed = 0;
for (const [pointer, example] of examples) {
  const real = seen.get(pointer);
  if (!real) {
    console.log(`not answered in this run: ${pointer}`);
    continue;
  }
  const members = JSON.stringify(membersOf(example));
  if (real.has(members)) continue;
  failed += 1;
  console.error(`the example of ${pointer} has the members ${members};`);
  for (const set of real) console.error(`  a real answer has ${set}`);
}
const checked = files.filter((n) => n.endsWith('.count'))
  .reduce((sum, n) => sum + Number(readFileSync(join(answersDir, n), 'utf8')), 0);
console.log(`the proxies checked ${checked} requests and their answers against the document`);
if (failed > 0) process.exit(1);
console.log(`${examples.size} response examples, each with the members of a real answer (or not answered)`);
