// The checks of the installed package, shared by the ES module and the CommonJS consumer
// (tools/ci/js.sh copies this folder into a fresh npm project outside the repository and
// installs the `npm pack` tarball there). `c` is the package's namespace, however loaded.
// Known values: RFC 8785 for the canonical form, RFC 8032 §7.1 TEST 1 for the key pair and
// its signature of the empty message, Node's own Ed25519 (OpenSSL) for signObject.
import assert from "node:assert/strict";
import { createPublicKey, verify } from "node:crypto";

const SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const EMPTY_SIGNATURE =
  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b";

const hex = (bytes) => Buffer.from(bytes).toString("hex");

export function check(c, expectedVersion) {
  assert.equal(c.version(), expectedVersion);
  // RFC 8785: members sorted, ECMAScript numbers, escapes decoded.
  assert.equal(c.canonicalize('{"c": "\\u20ac", "b": [true, 1.50], "a": 1e2}'), '{"a":100,"b":[true,1.5],"c":"€"}');

  const kp = c.KeyPair.fromSeed(Buffer.from(SEED, "hex"));
  assert.equal(hex(kp.publicKey()), PUBLIC);
  assert.equal(hex(kp.sign(new Uint8Array(0))), EMPTY_SIGNATURE);

  const signed = kp.signObject('{"b": 2, "a": 1}');
  const { signature } = JSON.parse(signed);
  assert.equal(signed, `{"a":1,"b":2,"signature":"${signature}"}`);
  // The signature covers the canonical object without `signature`: OpenSSL agrees.
  const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(PUBLIC, "hex").toString("base64url") }, format: "jwk" });
  assert.equal(verify(null, Buffer.from('{"a":1,"b":2}'), key, Buffer.from(signature, "base64url")), true);
  c.verifySignature(signed, kp.publicKeyB64url());
  assert.throws(
    () => c.verifySignature(signed.replace('"b":2', '"b":3'), kp.publicKeyB64url()),
    (e) => e instanceof c.SignatureError && e instanceof c.ConcordiaError && e.code === "CONCORDIA_SIGNATURE" && e.class === "signature",
  );
  kp.free();
}
