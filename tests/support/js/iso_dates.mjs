// Oracle for src/core/util/time: JavaScript's own Date formatting and parsing.
// stdin:  {"format": [epoch ms, ...], "parse": [RFC 3339 text, ...]}
// stdout: {"formatted": [Date.toISOString(), ...], "parsed": [epoch ms or null, ...]}
import { readFileSync } from 'node:fs';

const request = JSON.parse(readFileSync(0, 'utf8'));
const parsed = request.parse.map((text) => {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
});
process.stdout.write(JSON.stringify({
  formatted: request.format.map((ms) => new Date(ms).toISOString()),
  parsed,
}));
