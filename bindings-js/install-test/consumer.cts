// The CommonJS view of the same declarations (`import x = require(...)` under
// --module nodenext), compiled with `tsc --strict --noEmit`.
import concordia = require("concordia-rs");

const signed: string = concordia.KeyPair.fromSeed(new Uint8Array(32)).signObject("{}");
concordia.verifySignature(signed, "");
// @ts-expect-error: verifySignature needs the public key.
concordia.verifySignature(signed);
