#!/usr/bin/env node
// RFC 8785 (JCS) oracle computed with V8, for differential tests.
//
// Usage: node tools/node-jcs-oracle.mjs [FILE]   (JSON Lines on FILE or stdin)
//
// For each input line (split on "\n" only) prints one output line:
//   - the RFC 8785 canonical form: JSON.parse, then a recursive writer that
//     sorts member names with the default Array.prototype.sort (UTF-16 code
//     unit order) and uses JSON.stringify for strings and numbers
//     (ECMAScript Number::toString, well-formed JSON.stringify escapes);
//   - or `!error <reason>` where reason is `utf8` (not valid UTF-8),
//     `parse` (JSON.parse threw) or `non-finite` (a number overflowed to
//     +-Infinity, which RFC 8785 forbids).
// JSON.parse itself keeps the last of duplicate names and accepts unpaired
// surrogate escapes; the harness decides what those lines mean.
// No npm packages: Node's standard library only.

import { readFileSync, writeSync } from "node:fs";

const input = readFileSync(process.argv[2] ?? 0);

// fatal: reject malformed UTF-8 instead of substituting U+FFFD;
// ignoreBOM: keep a leading U+FEFF so that JSON.parse rejects it.
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

class NonFinite extends Error {}

function canon(v) {
  if (v === null || typeof v === "boolean") return JSON.stringify(v);
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new NonFinite();
    return JSON.stringify(v); // -0 prints as "0"
  }
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return "[" + v.map(canon).join(",") + "]";
  const keys = Object.keys(v).sort();
  return "{" + keys.map((k) => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}";
}

function line(bytes) {
  let text;
  try {
    text = decoder.decode(bytes);
  } catch {
    return "!error utf8";
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return "!error parse";
  }
  try {
    return canon(value);
  } catch (e) {
    if (e instanceof NonFinite) return "!error non-finite";
    throw e;
  }
}

let end = input.length;
if (end > 0 && input[end - 1] === 0x0a) end -= 1;
const out = [];
if (end > 0 || input.length > 0) {
  let start = 0;
  for (;;) {
    const nl = input.indexOf(0x0a, start);
    if (nl === -1 || nl >= end) {
      out.push(line(input.subarray(start, end)));
      break;
    }
    out.push(line(input.subarray(start, nl)));
    start = nl + 1;
  }
}
const data = Buffer.from(out.map((s) => s + "\n").join(""), "utf8");
let off = 0;
while (off < data.length) off += writeSync(1, data, off);
