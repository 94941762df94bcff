// Benchmarks of the npm package against the JavaScript anchors, in one process and one
// run: canonical JSON from text (concordia-rs `canonicalize(text)` against the
// `canonicalize` package, which needs `JSON.parse` first) and verification of signed
// ~2 KB negotiation messages (concordia-rs `verifySignature(text, key)`, which parses,
// canonicalizes without `signature` and verifies, against the same steps done with
// JSON.parse + `canonicalize` + Node's OpenSSL `crypto.verify` or `@noble/ed25519`, and
// against `crypto.verify` on the ready preimage alone). Each implementation runs for a
// fixed number of operations per round, interleaved, for several rounds; the report gives
// min and median operations per second and the per-round ratios. Prints Markdown.
//
//   node bench/bench.mjs [--rounds N] [--quick]
import { createHash, createPublicKey, verify as nodeVerify } from "node:crypto";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import * as ed from "@noble/ed25519";
import canonicalizeJs from "canonicalize";

import * as c from "../node.js";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const rounds = Number(args[args.indexOf("--rounds") + 1]) || (quick ? 3 : 9);
ed.hashes.sha512 = (m) => new Uint8Array(createHash("sha512").update(m).digest());

// ------------------------------------------------------------------ corpus

/** 64 signed offer envelopes of ~2 KB each (varied terms, non-ASCII text, decimals). */
function corpus() {
  const kp = c.KeyPair.fromSeed(new Uint8Array(32).fill(7));
  const places = ["Zürich", "東京", "São Paulo", "Kraków", "Malmö"];
  const out = [];
  for (let n = 0; n < 64; n++) {
    const terms = {};
    let text = "";
    for (let i = 0; text.length < 2048; i++) {
      terms[`term_${String(i).padStart(2, "0")}`] = {
        value: i % 3 ? 1000 + i * 37.25 + n : 1200 + i,
        unit: i % 2 ? "USD" : "units",
        label: `Term ${i} — négociable, ${places[(i + n) % places.length]} ✓`,
        flexible: i % 2 === 0,
        range: [i, i * 2.5, null],
      };
      text = kp.signEnvelope({
        messageType: "negotiate.offer",
        id: `msg_${n}`,
        sessionId: "ses_bench01",
        timestamp: "2026-01-02T03:04:05Z",
        from: { agentId: "agent_seller_01", principalId: "principal_acme" },
        to: [{ agentId: "agent_buyer_02" }],
        body: JSON.stringify({ offer_id: `off_${n}`, offer_type: "basic", terms, valid_until: "2030-01-01T00:00:00Z" }),
        reasoning: "Opening offer with volume discount 🤝.",
      });
    }
    // On the wire: member names in the producer's order, not sorted.
    const m = JSON.parse(text);
    out.push(JSON.stringify({ signature: m.signature, type: m.type, from: m.from, body: m.body, ...m }));
  }
  return { messages: out, key: kp.publicKeyB64url(), raw: kp.publicKey() };
}

// ------------------------------------------------------------------ timing

function opsPerSecond(fn, n) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  return n / (Number(process.hrtime.bigint() - t0) / 1e9);
}

/** Interleaved rounds of every implementation; ops/s per round. */
function race(impls, n) {
  for (const f of Object.values(impls)) opsPerSecond(f, Math.max(10, n / 10)); // warm up
  const runs = Object.fromEntries(Object.keys(impls).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) for (const [k, f] of Object.entries(impls)) runs[k].push(opsPerSecond(f, n));
  return runs;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const min = (xs) => Math.min(...xs);
const fmt = (x, d = 0) => x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

// ------------------------------------------------------------------ workloads

const { messages, key, raw } = corpus();
const bytes = messages.reduce((s, m) => s + Buffer.byteLength(m), 0) / messages.length;
for (const m of messages) {
  if (c.canonicalize(m) !== canonicalizeJs(JSON.parse(m))) throw new Error("the canonical forms differ");
}
const spki = createPublicKey({
  key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), Buffer.from(raw)]),
  format: "der",
  type: "spki",
});
const preimages = messages.map((m) => {
  const { signature, ...rest } = JSON.parse(m);
  return { bytes: Buffer.from(canonicalizeJs(rest)), sig: Buffer.from(signature, "base64url") };
});
const M = messages.length;

const jcs = race(
  {
    "concordia-rs canonicalize(text)": (i) => c.canonicalize(messages[i % M]),
    "canonicalize(JSON.parse(text))": (i) => canonicalizeJs(JSON.parse(messages[i % M])),
  },
  quick ? 2000 : 8000,
);

const fullNode = (i) => {
  const { signature, ...rest } = JSON.parse(messages[i % M]);
  if (!nodeVerify(null, Buffer.from(canonicalizeJs(rest)), spki, Buffer.from(signature, "base64url"))) throw new Error("bad");
};
const fullNoble = (i) => {
  const { signature, ...rest } = JSON.parse(messages[i % M]);
  if (!ed.verify(Buffer.from(signature, "base64url"), Buffer.from(canonicalizeJs(rest)), raw)) throw new Error("bad");
};
const verify = race(
  {
    "concordia-rs verifySignature(text, key)": (i) => c.verifySignature(messages[i % M], key),
    "JSON.parse + canonicalize + crypto.verify": fullNode,
    "crypto.verify of the preimage alone": (i) => {
      const p = preimages[i % M];
      if (!nodeVerify(null, p.bytes, spki, p.sig)) throw new Error("bad");
    },
  },
  quick ? 500 : 2000,
);
const noble = race({ "JSON.parse + canonicalize + @noble/ed25519 verify": fullNoble }, quick ? 50 : 200);

// ------------------------------------------------------------------ report

const wasm = readFileSync(new URL("../wasm/concordia_wasm_bg.wasm", import.meta.url));
const ratio = (a, b) => a.map((x, i) => x / b[i]);
const line = (name, runs, perByte) =>
  `| ${name} | ${fmt(min(runs))} | ${fmt(median(runs))} |` + (perByte ? ` ${fmt((median(runs) * bytes) / 1e6, 1)} |` : "");

const out = [];
out.push(`Node ${process.version}, ${rounds} interleaved rounds, ${M} messages of ${fmt(bytes)} bytes on average.`);
out.push("");
out.push("| canonical JSON from text | min ops/s | median ops/s | median MB/s |");
out.push("|---|---:|---:|---:|");
for (const [k, v] of Object.entries(jcs)) out.push(line(k, v, true));
const [rsJ, jsJ] = Object.values(jcs);
const rj = ratio(rsJ, jsJ);
out.push("");
out.push(`concordia-rs / canonicalize per round: min ${fmt(min(rj), 2)}x, median ${fmt(median(rj), 2)}x (goal >= 3x).`);
out.push("");
out.push("| verify a signed message | min ops/s | median ops/s |");
out.push("|---|---:|---:|");
for (const [k, v] of Object.entries({ ...verify, ...noble })) out.push(line(k, v, false));
const [rsV, nodeV, rawV] = Object.values(verify);
const [nobleV] = Object.values(noble);
out.push("");
out.push(`concordia-rs / (JSON.parse + canonicalize + crypto.verify) per round: min ${fmt(min(ratio(rsV, nodeV)), 2)}x, median ${fmt(median(ratio(rsV, nodeV)), 2)}x.`);
out.push(`concordia-rs / crypto.verify of the preimage alone per round: min ${fmt(min(ratio(rsV, rawV)), 2)}x, median ${fmt(median(ratio(rsV, rawV)), 2)}x (goal >= 0.67x).`);
out.push(`concordia-rs / @noble/ed25519 pipeline (medians): ${fmt(median(rsV) / median(nobleV), 1)}x.`);
out.push("");
out.push(`\`concordia_wasm_bg.wasm\`: ${fmt(wasm.length)} bytes, ${fmt(gzipSync(wasm, { level: 9 }).length)} bytes gzipped (gzip -9).`);
console.log(out.join("\n"));
