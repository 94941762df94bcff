// Shared by the tests: the repository's paths, the release CLI, the demo it writes, and
// independent oracles (node:crypto for SHA-256 and Ed25519).
import { execFileSync } from "node:child_process";
import { createHash, createPublicKey, verify as nodeVerify } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
/** The `concordia` binary (CONCORDIA_CLI, default target/release/concordia). */
export const CLI = process.env.CONCORDIA_CLI ?? join(ROOT, "target", "release", "concordia");
export const SEED = Uint8Array.from({ length: 32 }, (_, i) => i);
export const START = new Date("2026-01-02T03:04:05Z");
export const SELLER = "did:concordia:agent:camera-seller";
export const BUYER = "did:concordia:agent:camera-buyer";

export const hex = (bytes) => Buffer.from(bytes).toString("hex");
export const fromHex = (text) => new Uint8Array(Buffer.from(text, "hex"));
export const b64url = (bytes) => Buffer.from(bytes).toString("base64url").padEnd(Math.ceil(bytes.length / 3) * 4, "=");
export const sha256Hex = (data) => createHash("sha256").update(data).digest("hex");

/** The demo's key and id derivation (cli/src/demo.rs): SHA-256(seed || label). */
export function derive(label) {
  return new Uint8Array(createHash("sha256").update(SEED).update(label).digest());
}

/** When the demo applied message `step` (0-based): 45 s apart after the start. */
export const at = (step) => new Date(START.getTime() + 45_000 * (step + 1));

export function cli(args, options = {}) {
  return execFileSync(CLI, args, { encoding: "utf8", ...options });
}

/** `concordia demo` with a fixed seed and clock: transcript, its messages' exact texts, keys, attestation. */
export function demo() {
  const out = mkdtempSync(join(tmpdir(), "concordia-js-demo-"));
  cli(["demo", "--seed", hex(SEED), "--now", "2026-01-02T03:04:05Z", "--out", out]);
  const transcript = readFileSync(join(out, "transcript.json"), "utf8");
  // One message per line between the brackets: keep each message's exact text.
  const messages = transcript
    .split("\n")
    .filter((l) => !["[", "]", ""].includes(l))
    .map((l) => l.replace(/,$/, ""));
  return {
    dir: out,
    transcript,
    messages,
    keys: readFileSync(join(out, "keys.json"), "utf8"),
    attestation: readFileSync(join(out, "attestation.json"), "utf8"),
  };
}

/** Ed25519 verification by node:crypto (OpenSSL), an oracle independent of the core. */
export function opensslVerify(publicKey32, message, signature) {
  const der = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), Buffer.from(publicKey32)]);
  const key = createPublicKey({ key: der, format: "der", type: "spki" });
  return nodeVerify(null, Buffer.from(message), key, Buffer.from(signature));
}

/**
 * The exact text of member `name` of the top-level object in `text` (no re-serialization:
 * JSON.parse would turn `-0` into `0` and round big integers, which the vectors test).
 */
export function rawMember(text, name) {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      const end = stringEnd(text, i);
      if (depth === 1 && JSON.parse(text.slice(i, end)) === name) {
        let j = end;
        while (/\s/.test(text[j])) j++;
        if (text[j] === ":") return valueText(text, j + 1);
      }
      i = end - 1;
    } else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") depth--;
  }
  throw new Error(`no member ${name}`);
}

function stringEnd(text, start) {
  let i = start + 1;
  while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return i + 1;
}

function valueText(text, from) {
  let i = from;
  while (/\s/.test(text[i])) i++;
  const start = i;
  let depth = 0;
  for (; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      i = stringEnd(text, i) - 1;
      if (depth === 0) return text.slice(start, i + 1);
    } else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      if (depth === 0) return text.slice(start, i).trimEnd();
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    } else if (ch === "," && depth === 0) return text.slice(start, i).trimEnd();
  }
  return text.slice(start).trimEnd();
}
