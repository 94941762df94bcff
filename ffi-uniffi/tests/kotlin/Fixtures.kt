// Shared values and helpers of the JVM suite: the demo fixtures, the demo's key derivation,
// the RFC test vectors, and the JDK's own SHA-256, Ed25519 and X25519 as oracles.
//
// Paths come from system properties that tools/ci/kotlin.sh sets:
//   concordia.root  the repository (conformance vectors, the XCTest demo fixtures)
//   concordia.cli   the `concordia` binary (AIP and credential interop)

package io.github.concordia_rs.concordia.test

import io.github.concordia_rs.concordia.KeyPair
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import java.io.File
import java.math.BigInteger
import java.security.KeyFactory
import java.security.MessageDigest
import java.security.Signature
import java.security.spec.EdECPrivateKeySpec
import java.security.spec.NamedParameterSpec
import java.security.spec.X509EncodedKeySpec
import java.security.spec.XECPrivateKeySpec
import java.security.spec.XECPublicKeySpec
import java.time.Instant
import java.util.Base64
import javax.crypto.KeyAgreement

val root: File = File(System.getProperty("concordia.root") ?: error("set -Dconcordia.root to the repository"))
val cli: String = System.getProperty("concordia.cli") ?: File(root, "target/release/concordia").path

val SEED: ByteArray = ByteArray(32) { it.toByte() }
val START: Instant = Instant.parse("2026-01-02T03:04:05Z")
const val SELLER = "did:concordia:agent:camera-seller"
const val BUYER = "did:concordia:agent:camera-buyer"
val GENESIS = "sha256:" + "0".repeat(64)

// RFC 8032 §7.1, TEST 1.
val RFC8032_SEED = hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
val RFC8032_PUBLIC = hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
val RFC8032_SIG = hex(
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155" +
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
)

fun hex(text: String): ByteArray = ByteArray(text.length / 2) { text.substring(2 * it, 2 * it + 2).toInt(16).toByte() }

fun ByteArray.hex(): String = joinToString("") { "%02x".format(it.toInt() and 0xff) }

fun sha256(data: ByteArray): ByteArray = MessageDigest.getInstance("SHA-256").digest(data)

fun sha256Hex(data: ByteArray): String = sha256(data).hex()

fun sha256Hex(text: String): String = sha256Hex(text.toByteArray())

/** Padded base64url, the form of `keys.json`. */
fun b64url(data: ByteArray): String = Base64.getUrlEncoder().encodeToString(data)

fun b64(data: ByteArray): String = Base64.getEncoder().encodeToString(data)

/** The demo's key and id derivation (cli/src/demo.rs): SHA-256(seed || label). */
fun derive(label: String): ByteArray = sha256(SEED + label.toByteArray())

fun demoKeyPair(label: String): KeyPair = KeyPair.fromSeed(derive(label))

/** When the demo applied message `step` (0-based): 45 s apart after the start. */
fun at(step: Int): Instant = START.plusSeconds(45L * (step + 1))

/** `concordia demo --seed 000102...1f --now 2026-01-02T03:04:05Z`, as the XCTest suite reads it. */
class Demo(val transcript: String, val messages: List<String>, val keys: String, val attestation: String) {
    companion object {
        val instance: Demo by lazy {
            val dir = File(root, "bindings-swift/Tests/ConcordiaTests/Fixtures/demo")
            val transcript = File(dir, "transcript.json").readText()
            // One message per line between the brackets: keep each message's exact text.
            val messages = transcript.lines().filter { it != "[" && it != "]" && it.isNotEmpty() }.map { it.removeSuffix(",") }
            Demo(transcript, messages, File(dir, "keys.json").readText(), File(dir, "attestation.json").readText())
        }
    }
}

// JSON through kotlinx.serialization (an independent reader and writer: member order kept,
// numbers written with their original text, no escaped slashes).

fun json(text: String): JsonObject = Json.parseToJsonElement(text).jsonObject

fun JsonObject.str(name: String): String = getValue(name).jsonPrimitive.content

fun obj(vararg members: Pair<String, Any?>): JsonObject = JsonObject(members.associate { (k, v) -> k to element(v) })

fun element(v: Any?): JsonElement = when (v) {
    null -> kotlinx.serialization.json.JsonNull
    is JsonElement -> v
    is String -> JsonPrimitive(v)
    is Number -> JsonPrimitive(v)
    is Boolean -> JsonPrimitive(v)
    is List<*> -> JsonArray(v.map { element(it) })
    else -> error("not JSON: $v")
}

/** `o` with members replaced or added (in place of the old member, else at the end). */
fun JsonObject.with(vararg members: Pair<String, Any?>): JsonObject =
    JsonObject(LinkedHashMap<String, JsonElement>(this).apply { members.forEach { (k, v) -> put(k, element(v)) } })

fun JsonObject.without(name: String): JsonObject = JsonObject(filterKeys { it != name })

// The JDK's Ed25519 and X25519 (SunEC), independent of the Rust crates.

private val ED25519_SPKI_PREFIX = hex("302a300506032b6570032100")

/** Ed25519 signature of `message` by the JDK under the private key `seed` (RFC 8032: deterministic). */
fun jdkSign(seed: ByteArray, message: ByteArray): ByteArray {
    val key = KeyFactory.getInstance("Ed25519").generatePrivate(EdECPrivateKeySpec(NamedParameterSpec.ED25519, seed))
    return Signature.getInstance("Ed25519").run {
        initSign(key)
        update(message)
        sign()
    }
}

/** Whether the JDK accepts `signature` of `message` under the 32-byte public key. */
fun jdkVerify(publicKey: ByteArray, message: ByteArray, signature: ByteArray): Boolean {
    val key = KeyFactory.getInstance("Ed25519").generatePublic(X509EncodedKeySpec(ED25519_SPKI_PREFIX + publicKey))
    return Signature.getInstance("Ed25519").run {
        initVerify(key)
        update(message)
        verify(signature)
    }
}

/** The X25519 public key of `secret` by the JDK: the shared secret with the base point u = 9. */
fun jdkX25519Public(secret: ByteArray): ByteArray {
    val kf = KeyFactory.getInstance("XDH")
    val private = kf.generatePrivate(XECPrivateKeySpec(NamedParameterSpec.X25519, secret))
    val base = kf.generatePublic(XECPublicKeySpec(NamedParameterSpec.X25519, BigInteger.valueOf(9)))
    return KeyAgreement.getInstance("XDH").run {
        init(private)
        doPhase(base, true)
        generateSecret()
    }
}

/** Runs the CLI; returns its standard output, failing the test on a non-zero exit. */
fun runCli(vararg args: String): String {
    val p = ProcessBuilder(cli, *args).redirectErrorStream(false).start()
    val out = p.inputStream.readBytes().toString(Charsets.UTF_8)
    val err = p.errorStream.readBytes().toString(Charsets.UTF_8)
    val status = p.waitFor()
    if (status != 0) fail("concordia ${args.joinToString(" ")} exited $status: $err")
    return out
}
