// Canonical JSON, hashes, keys and signatures, and the error model, checked against
// independent oracles: the `canonicalize` package (RFC 8785's JavaScript reference),
// node:crypto's SHA-256 and its OpenSSL Ed25519.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import canonicalizeOracle from "canonicalize";

import * as c from "../node.js";
import { ROOT, b64url, fromHex, opensslVerify, sha256Hex } from "./helpers.mjs";

// RFC 8032 §7.1, TEST 1.
const RFC8032_SEED = fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
const RFC8032_PUBLIC = fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
const RFC8032_SIG = fromHex(
  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155" +
    "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
);

test("version", () => {
  assert.equal(c.version(), "0.1.0");
});

test("canonicalize and hash", () => {
  assert.equal(c.canonicalize('{"b": 1.50, "a": [true, "\\u00e9"], "c": 1e2}'), '{"a":[true,"é"],"b":1.5,"c":100}');
  // RFC 8785 §3.2.3: keys sorted by UTF-16 code units.
  assert.equal(c.canonicalize('{"\\u20ac": 1, "\\r": 2, "\\ud83d\\ude00": 3, "1": 4}'), '{"\\r":2,"1":4,"€":1,"😀":3}');
  const text = '{"z": 1, "a": {"y": null}}';
  assert.equal(c.hash(text), "sha256:" + sha256Hex(c.canonicalize(text)));
  assert.equal(c.hash("{}"), "sha256:" + sha256Hex("{}"));
});

test("canonicalize agrees with the canonicalize package on generated documents", () => {
  // A deterministic generator (xorshift) of documents inside the shared domain: no -0, no
  // integers beyond 2^53 - 1, no duplicate names.
  let s = 0x2545f491;
  const rnd = () => ((s ^= s << 13), (s ^= s >>> 17), (s ^= s << 5), (s >>> 0) / 4294967296);
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  const str = () =>
    Array.from({ length: Math.floor(rnd() * 6) }, () =>
      pick(["a", "Z", "é", "€", "😀", "\u0000", "\n", '"', "\\", "\u2028", "\ud7ff", "\ue000", "1"]),
    ).join("");
  const num = () =>
    pick([
      () => Math.floor(rnd() * 2 ** 53) * pick([1, -1]) || 0,
      () => (rnd() - 0.5) * 10 ** Math.floor(rnd() * 40 - 20),
      () => Number((rnd() * 1e6).toFixed(Math.floor(rnd() * 6))),
      () => pick([1e21, 1e-7, 5e-324, 1.7976931348623157e308, 0.1, 100]),
    ])() || 0;
  const value = (d) => {
    const k = d > 3 ? Math.floor(rnd() * 4) : Math.floor(rnd() * 6);
    if (k === 0) return num();
    if (k === 1) return str();
    if (k === 2) return pick([true, false, null]);
    if (k === 3) return num();
    if (k === 4) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(d + 1));
    const o = {};
    for (let i = Math.floor(rnd() * 5); i > 0; i--) o[str()] = value(d + 1);
    return o;
  };
  for (let i = 0; i < 2000; i++) {
    const doc = value(0);
    const text = JSON.stringify(doc, null, i % 2 ? 1 : 0);
    const want = canonicalizeOracle(doc);
    assert.equal(c.canonicalize(text), want, text);
    assert.equal(c.hash(text), "sha256:" + sha256Hex(want));
  }
});

test("JSON errors: class, code, offset, Error subclasses", () => {
  assert.throws(
    () => c.canonicalize('{"a":1,"a":2}'),
    (e) =>
      e instanceof c.InputError &&
      e instanceof c.ConcordiaError &&
      e instanceof Error &&
      e.name === "InputError" &&
      e.class === "input" &&
      e.code === "CONCORDIA_JSON_DUPLICATE_KEY" &&
      e.offset === 7 &&
      e.sdkException === "ValueError" &&
      e.message === "malformed JSON at byte 7: duplicate member name",
  );
  assert.throws(() => c.hash("-0"), { class: "input", code: "CONCORDIA_JSON_NEGATIVE_ZERO", offset: 0 });
  assert.throws(() => c.canonicalize("[9007199254740993]"), { code: "CONCORDIA_JSON_UNSAFE_INTEGER" });
  assert.throws(() => c.canonicalize('"\\ud800"'), { code: "CONCORDIA_JSON_LONE_SURROGATE" });
  assert.throws(() => c.canonicalize("[1,]"), { code: "CONCORDIA_JSON_UNEXPECTED_BYTE", offset: 3 });
  assert.throws(() => c.canonicalize("[1"), { code: "CONCORDIA_JSON_UNEXPECTED_END" });
  assert.throws(() => c.canonicalize("1 2"), { code: "CONCORDIA_JSON_TRAILING_BYTES" });
  assert.throws(() => c.canonicalize("NaN"), { code: "CONCORDIA_JSON_UNEXPECTED_BYTE" });
  assert.throws(() => c.canonicalize("1e400"), { code: "CONCORDIA_JSON_NUMBER_OUT_OF_RANGE" });
  assert.throws(() => c.canonicalize('"\u0001"'), { code: "CONCORDIA_JSON_CONTROL_CHARACTER" });
  assert.throws(() => c.canonicalize('"\\x"'), { code: "CONCORDIA_JSON_INVALID_ESCAPE" });
  assert.throws(() => c.canonicalize("\ufeff{}"), { code: "CONCORDIA_JSON_BYTE_ORDER_MARK" });
  // Offsets count UTF-8 bytes of the input: "é" is two, so the repeat is at 8, not 7.
  assert.throws(() => c.canonicalize('{"é":1,"é":2}'), { offset: 8 });
  assert.throws(
    () => c.canonicalize("[".repeat(1000) + "]".repeat(1000)),
    (e) => e instanceof c.LimitError && e.class === "limit" && e.code === "CONCORDIA_LIMIT_DEPTH" && /depth/.test(e.message),
  );
  // 128 levels are accepted, 129 are not (the one depth policy).
  assert.equal(c.canonicalize("[".repeat(128) + "]".repeat(128)), "[".repeat(128) + "]".repeat(128));
  assert.throws(() => c.canonicalize("[".repeat(129) + "]".repeat(129)), c.LimitError);
});

test("KeyPair.fromSeed: RFC 8032 test 1", () => {
  const kp = c.KeyPair.fromSeed(RFC8032_SEED);
  assert.deepEqual(kp.publicKey(), RFC8032_PUBLIC);
  assert.equal(kp.publicKeyB64url(), b64url(RFC8032_PUBLIC));
  assert.deepEqual(kp.seed(), RFC8032_SEED);
  assert.deepEqual(kp.sign(new Uint8Array()), RFC8032_SIG);
  c.verifyDetached(kp.publicKeyB64url(), new Uint8Array(), RFC8032_SIG);
});

test("KeyPair.generate: WebCrypto seeds, signatures OpenSSL verifies", () => {
  const a = c.KeyPair.generate();
  const b = c.KeyPair.generate();
  assert.equal(a.seed().length, 32);
  assert.notDeepEqual(a.seed(), b.seed());
  assert.deepEqual(c.KeyPair.fromSeed(a.seed()).publicKey(), a.publicKey());
  const msg = new TextEncoder().encode("hello");
  const sig = a.sign(msg);
  assert.ok(opensslVerify(a.publicKey(), msg, sig));
  c.verifyDetached(a.publicKeyB64url(), msg, sig);
  assert.throws(() => c.verifyDetached(b.publicKeyB64url(), msg, sig), {
    name: "SignatureError",
    code: "CONCORDIA_SIGNATURE",
    class: "signature",
  });
});

test("signObject and verifySignature", () => {
  const kp = c.KeyPair.fromSeed(RFC8032_SEED);
  const signed = kp.signObject('{"b": 2, "a": 1, "signature": "old"}');
  const obj = JSON.parse(signed);
  assert.deepEqual(Object.keys(obj), ["a", "b", "signature"]);
  assert.notEqual(obj.signature, "old");
  // The preimage is the canonical object without `signature` (OpenSSL agrees).
  const sig = Buffer.from(obj.signature, "base64url");
  assert.ok(opensslVerify(RFC8032_PUBLIC, '{"a":1,"b":2}', sig));
  for (const key of [kp.publicKeyB64url(), kp.publicKeyB64url().replace(/=+$/, ""), Buffer.from(RFC8032_PUBLIC).toString("base64")]) {
    c.verifySignature(signed, key);
  }
  assert.equal(c.publicKeyToB64url(Buffer.from(RFC8032_PUBLIC).toString("base64").replace(/=+$/, "")), kp.publicKeyB64url());
  c.verifySignature(JSON.stringify({ signature: obj.signature, b: 2, a: 1 }), kp.publicKeyB64url());
});

test("signature errors", () => {
  const kp = c.KeyPair.fromSeed(RFC8032_SEED);
  const signed = kp.signObject('{"a": 1}');
  assert.throws(() => c.verifySignature(signed.replace('"a":1', '"a":2'), kp.publicKeyB64url()), {
    name: "SignatureError",
    code: "CONCORDIA_SIGNATURE",
    sdkException: "InvalidSignatureError",
  });
  assert.throws(() => c.verifySignature(signed, "not base64!"), { name: "InputError", code: "CONCORDIA_ENCODING" });
  assert.throws(() => c.verifyDetached(kp.publicKeyB64url(), new Uint8Array(), new Uint8Array(5)), {
    code: "CONCORDIA_ENCODING",
  });
  assert.throws(() => c.verifySignature('{"a": 1}', kp.publicKeyB64url()), {
    name: "SchemaError",
    code: "CONCORDIA_SCHEMA",
    sdkException: "InvalidSignatureError",
  });
  // One spelling: an unpadded signature is an encoding error.
  const unpadded = signed.replace(/=+"/, '"');
  assert.throws(() => c.verifySignature(unpadded, kp.publicKeyB64url()), { code: "CONCORDIA_ENCODING" });
  assert.throws(() => kp.signObject('{"a": '), { name: "InputError", code: "CONCORDIA_JSON_UNEXPECTED_END", offset: 6 });
  assert.throws(() => kp.signObject("[1]"), { name: "SchemaError" });
  assert.throws(() => c.KeyPair.fromSeed(new Uint8Array(31)), {
    name: "InputError",
    code: "CONCORDIA_INVALID_ARGUMENT",
    message: "invalid argument: seed must be 32 bytes",
  });
});

test("error classes: one per reason class, all ConcordiaErrors", () => {
  const classes = {
    InputError: "input",
    LimitError: "limit",
    SchemaError: "schema",
    SignatureError: "signature",
    DigestError: "digest",
    BindingError: "binding",
    TemporalError: "temporal",
    PrivacyError: "privacy",
    TransitionError: "transition",
    RandomnessError: "internal",
    ReplayError: "replay",
  };
  for (const name of Object.keys(classes)) {
    assert.ok(c[name].prototype instanceof c.ConcordiaError, name);
  }
});

test("RandomnessError when WebCrypto is missing (a child process without globalThis.crypto)", () => {
  const code = `
    Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true });
    const c = await import("./node.js");
    const out = [];
    for (const f of [() => c.KeyPair.generate(), () => c.AipKeyPair.generate(), () => c.aipNewMessageId()]) {
      try { f(); out.push("no error"); }
      catch (e) { out.push([e instanceof c.RandomnessError, e instanceof c.ConcordiaError, e.name, e.code, e.class, e.message]); }
    }
    // Everything that needs no randomness still works.
    out.push(c.KeyPair.fromSeed(new Uint8Array(32)).publicKeyB64url());
    console.log(JSON.stringify(out));`;
  const out = JSON.parse(
    execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: join(ROOT, "bindings-js"), encoding: "utf8" }),
  );
  const want = [true, true, "RandomnessError", "CONCORDIA_RANDOMNESS_UNAVAILABLE", "internal"];
  for (const e of out.slice(0, 3)) {
    assert.deepEqual(e.slice(0, 5), want);
    assert.match(e[5], /^randomness unavailable: /);
  }
  assert.equal(out[3], c.KeyPair.fromSeed(new Uint8Array(32)).publicKeyB64url());
});

test("free() releases an object's WebAssembly memory; using it afterwards throws", () => {
  const objects = [
    c.KeyPair.fromSeed(RFC8032_SEED),
    new c.TranscriptVerifier("{}"),
    new c.Session("ses_free", new Date(0)),
    c.AipKeyPair.fromSeeds(RFC8032_SEED, RFC8032_SEED),
    new c.AipReplayWindow("small"),
  ];
  const use = [(o) => o.seed(), (o) => o.count(), (o) => o.state(), (o) => o.didKey(), (o) => o.len()];
  objects.forEach((o, i) => {
    use[i](o);
    o.free();
    assert.throws(() => use[i](o), Error);
  });
});

// ES256 (issue 24): the reference SDK's message (concordia-protocol 0.10.0,
// sign_message(..., alg="ES256") with the key of scalar bytes 1..32) and its high-S twin,
// which the SDK refuses; WebCrypto (ECDSA P-256, SHA-256) as an independent verifier.
const ES256_KEY = "BFFcPW6545a5BNP-yn9U_c0MwemXvzddylFa0KbDtANfRTa-OlDzGPv5pUdZAqIhUCvvDVfgjFOyzApW8X2fk1Q=";
const ES256_SIG = "MEUCIQDCbJPtS5AVE6yoVCADcYKeJ9viS43YVgV1jRCCSqdpqwIgOKr-uD_bCr7uIcvbTKhDAgytybG9tJzgMk_3-vExJWM=";
const ES256_HIGH_S = "MEYCIQDCbJPtS5AVE6yoVCADcYKeJ9viS43YVgV1jRCCSqdpqwIhAMdVAUbAJPVCEd40JLNXvP2wOTD76WMBpMFp0sgLMf_u";
const es256Message = (sig) => `{"concordia":"interop","n":1,"text":"h\\u00e9llo","signature":"${sig}"}`;

test("Es256KeyPair and verifySignatureEs256", async () => {
  const kp = c.Es256KeyPair.fromScalar(Uint8Array.from({ length: 32 }, (_, i) => i + 1));
  assert.equal(kp.publicKeyB64url(), ES256_KEY);
  assert.deepEqual([...kp.scalar()], Array.from({ length: 32 }, (_, i) => i + 1));
  c.verifySignatureEs256(es256Message(ES256_SIG), ES256_KEY);
  assert.throws(() => c.verifySignatureEs256(es256Message(ES256_HIGH_S), ES256_KEY), {
    name: "SignatureError",
    code: "CONCORDIA_SIGNATURE",
  });
  assert.throws(() => c.verifySignatureEs256(es256Message(ES256_SIG.replace(/=+$/, "")), ES256_KEY), {
    code: "CONCORDIA_ENCODING",
  });
  const off = kp.publicKey();
  off[64] ^= 1;
  assert.throws(() => c.verifySignatureEs256(es256Message(ES256_SIG), b64url(off)), { code: "CONCORDIA_ENCODING" });
  assert.throws(() => c.Es256KeyPair.fromScalar(new Uint8Array(32)), { name: "InputError" });
  // Deterministic canonical signing; WebCrypto verifies the DER signature (as r || s).
  const signed = kp.signObject('{"b": 2, "a": 1}');
  assert.equal(signed, kp.signObject('{"a":1,"b":2}'));
  c.verifySignatureEs256(signed, ES256_KEY);
  const obj = JSON.parse(signed);
  const der = Buffer.from(obj.signature, "base64url");
  const int = (at) => {
    const len = der[at + 1];
    const body = der.subarray(at + 2, at + 2 + len);
    const out = new Uint8Array(32);
    const mag = body.subarray(Math.max(0, body.length - 32));
    out.set(mag, 32 - mag.length);
    return [out, at + 2 + len];
  };
  const [r, next] = int(2);
  const [s] = int(next);
  const raw = new Uint8Array(64);
  raw.set(r, 0);
  raw.set(s, 32);
  const key = await crypto.subtle.importKey("raw", kp.publicKey(), { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
  const preimage = new TextEncoder().encode('{"a":1,"b":2}');
  assert.ok(await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, raw, preimage));
  const g = c.Es256KeyPair.generate();
  c.verifySignatureEs256(g.signObject("{}"), g.publicKeyB64url());
  assert.throws(() => c.verifySignatureEs256(g.signObject("{}"), ES256_KEY), { code: "CONCORDIA_SIGNATURE" });
  g.free();
  kp.free();
});
