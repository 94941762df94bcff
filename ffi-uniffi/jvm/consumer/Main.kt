// A JVM program that uses the concordia-rs jar as a user's would (tools/ci/kotlin.sh copies
// it into a temporary folder outside the repository, compiles it against the jar, JNA and
// the Kotlin standard library only, and runs it with `java -cp` and nothing else: the
// native library comes out of the jar). Exits non-zero on the first wrong result.
import io.github.concordia_rs.concordia.KeyPair
import io.github.concordia_rs.concordia.SignatureException
import io.github.concordia_rs.concordia.canonicalize
import io.github.concordia_rs.concordia.verifySignature
import io.github.concordia_rs.concordia.version
import java.security.KeyFactory
import java.security.Signature
import java.security.spec.X509EncodedKeySpec
import java.util.Base64
import kotlin.system.exitProcess

// RFC 8032 §7.1, TEST 1: the key pair of this seed and its signature of the empty message.
const val SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
const val PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
const val EMPTY_SIGNATURE =
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"

fun hex(text: String): ByteArray = ByteArray(text.length / 2) { text.substring(2 * it, 2 * it + 2).toInt(16).toByte() }

fun ByteArray.hex(): String = joinToString("") { "%02x".format(it.toInt() and 0xff) }

fun expect(what: String, expected: Any?, actual: Any?) {
    if (expected != actual) {
        System.err.println("FAIL $what: expected $expected, got $actual")
        exitProcess(1)
    }
}

/** The JDK's own Ed25519 (an independent implementation) over a raw 32-byte public key. */
fun jdkVerify(publicKey: ByteArray, message: ByteArray, signature: ByteArray): Boolean {
    val spki = hex("302a300506032b6570032100") + publicKey
    val key = KeyFactory.getInstance("Ed25519").generatePublic(X509EncodedKeySpec(spki))
    return Signature.getInstance("Ed25519").run {
        initVerify(key)
        update(message)
        verify(signature)
    }
}

fun main() {
    expect("version", System.getProperty("concordia.expected.version"), version())
    // RFC 8785: members sorted by UTF-16 code units, ECMAScript numbers, escapes decoded.
    expect("canonicalize", """{"a":100,"b":[true,1.5],"c":"€"}""", canonicalize("""{"c": "\u20ac", "b": [true, 1.50], "a": 1e2}"""))

    val kp = KeyPair.fromSeed(hex(SEED))
    expect("public key", PUBLIC, kp.publicKey().hex())
    expect("signature of the empty message", EMPTY_SIGNATURE, kp.sign(ByteArray(0)).hex())

    val signed = kp.signObject("""{"b": 2, "a": 1}""")
    val b64 = Regex(""""signature":"([A-Za-z0-9_=-]+)"""").find(signed)?.groupValues?.get(1)
    expect("signed object", """{"a":1,"b":2,"signature":"$b64"}""", signed)
    // The signature covers the canonical object without `signature`.
    expect("JDK verifies the object's signature", true, jdkVerify(hex(PUBLIC), """{"a":1,"b":2}""".toByteArray(), Base64.getUrlDecoder().decode(b64)))
    verifySignature(signed, kp.publicKeyB64url())
    val refused = try {
        verifySignature(signed.replace("\"b\":2", "\"b\":3"), kp.publicKeyB64url())
        "accepted"
    } catch (e: SignatureException.InvalidSignature) {
        "InvalidSignature"
    }
    expect("a changed member", "InvalidSignature", refused)
    kp.close()
    println("concordia jar consumer: canonicalize, RFC 8032 key and signature, signObject (JDK-verified), verifySignature: ok")
}
