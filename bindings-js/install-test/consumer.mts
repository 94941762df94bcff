// Compiled with `tsc --strict --noEmit` against the installed package's declarations
// (package.json `exports` "types" condition): a wrong type here or there fails the build.
import { ConcordiaError, KeyPair, SignatureError, canonicalize, verifySignature, type ErrorClass } from "concordia-rs";

const canonical: string = canonicalize('{"b": 2, "a": 1}');
const kp: KeyPair = KeyPair.fromSeed(new Uint8Array(32));
const pub: Uint8Array = kp.publicKey();
const signed: string = kp.signObject(canonical);
try {
  verifySignature(signed, kp.publicKeyB64url());
} catch (e) {
  if (e instanceof SignatureError) {
    const klass: ErrorClass = e.class;
    const offset: number | undefined = e.offset;
    console.log(e.code, klass, offset, e instanceof ConcordiaError, pub.length);
  }
}
// @ts-expect-error: canonicalize takes JSON text, not an object.
canonicalize({ a: 1 });
