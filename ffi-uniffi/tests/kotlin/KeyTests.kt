// Canonical JSON, keys, signatures and envelopes (XCTest: JsonTests, KeyTests).

package io.github.concordia_rs.concordia.test

import io.github.concordia_rs.concordia.Envelope
import io.github.concordia_rs.concordia.JsonException
import io.github.concordia_rs.concordia.KeyPair
import io.github.concordia_rs.concordia.Party
import io.github.concordia_rs.concordia.SignatureException
import io.github.concordia_rs.concordia.canonicalize
import io.github.concordia_rs.concordia.hash
import io.github.concordia_rs.concordia.publicKeyToB64url
import io.github.concordia_rs.concordia.verifyDetached
import io.github.concordia_rs.concordia.verifySignature
import io.github.concordia_rs.concordia.version
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive

object JsonTests : Group() {
    init {
        test("version") { assertEquals("0.1.0", version()) }

        test("canonicalizeAndHash") {
            assertEquals("""{"a":[true,"é"],"b":1.5,"c":100}""", canonicalize("""{"b": 1.50, "a": [true, "\u00e9"], "c": 1e2}"""))
            // RFC 8785 §3.2.3: names sorted by UTF-16 code units.
            assertEquals(
                "{\"\\r\":2,\"1\":4,\"€\":1,\"\uD83D\uDE00\":3}",
                canonicalize("""{"\u20ac": 1, "\r": 2, "\ud83d\ude00": 3, "1": 4}"""),
            )
            val text = """{"z": 1, "a": {"y": null}}"""
            assertEquals("""{"a":{"y":null},"z":1}""", canonicalize(text))
            assertEquals("sha256:" + sha256Hex(canonicalize(text)), hash(text))
            assertEquals("sha256:" + sha256Hex("{}"), hash("{}"))
            // Strings cross the boundary as UTF-8 both ways, astral characters included.
            assertEquals("[\"\uD83D\uDE00\",\"€\"]", canonicalize("[\"\uD83D\uDE00\", \"\\u20ac\"]"))
        }

        test("jsonErrorVariants") {
            assertThrows<JsonException.Syntax>("byte 7: duplicate member name") { canonicalize("""{"a":1,"a":2}""") }
            assertThrows<JsonException.Syntax>("negative zero") { hash("-0") }
            assertThrows<JsonException.Limit>("depth") { canonicalize("[".repeat(1000) + "]".repeat(1000)) }
            val e: Exception = JsonException.Limit("x")
            assertTrue(e is JsonException, "a variant is its enum's exception")
        }
    }
}

object KeyTests : Group() {
    init {
        test("fromSeedRfc8032") {
            val kp = KeyPair.fromSeed(RFC8032_SEED)
            assertBytes(RFC8032_PUBLIC, kp.publicKey())
            assertEquals(b64url(RFC8032_PUBLIC), kp.publicKeyB64url())
            assertBytes(RFC8032_SEED, kp.seed())
            assertBytes(RFC8032_SIG, kp.sign(ByteArray(0)))
            verifyDetached(kp.publicKeyB64url(), ByteArray(0), RFC8032_SIG)
        }

        test("generate") {
            val a = KeyPair.generate()
            val b = KeyPair.generate()
            assertEquals(32, a.seed().size)
            assertFalse(a.seed().contentEquals(b.seed()), "two generated seeds are equal")
            assertBytes(a.publicKey(), KeyPair.fromSeed(a.seed()).publicKey())
            val sig = a.sign("hello".toByteArray())
            verifyDetached(a.publicKeyB64url(), "hello".toByteArray(), sig)
            assertThrows<SignatureException.InvalidSignature> {
                verifyDetached(b.publicKeyB64url(), "hello".toByteArray(), sig)
            }
        }

        test("signaturesAgreeWithTheJdk") {
            // Ed25519 is deterministic: the JDK signs the same bytes, and accepts ours.
            for (label in listOf("seller", "buyer", "jdk")) {
                val kp = demoKeyPair(label)
                val message = "message of $label".toByteArray()
                assertBytes(jdkSign(derive(label), message), kp.sign(message))
                assertTrue(jdkVerify(kp.publicKey(), message, kp.sign(message)), "the JDK rejects our signature")
                verifyDetached(kp.publicKeyB64url(), message, jdkSign(derive(label), message))
            }
        }

        test("signObjectAndVerify") {
            val kp = KeyPair.fromSeed(RFC8032_SEED)
            val signed = kp.signObject("""{"b": 2, "a": 1, "signature": "old"}""")
            val obj = json(signed)
            assertEquals(listOf("a", "b", "signature"), obj.keys.toList())
            assertNotEquals("old", obj.str("signature"))
            assertTrue(signed.startsWith("""{"a":1,"b":2,"signature":""""))
            // The signature covers the canonical object without `signature`: the JDK agrees.
            val sig = java.util.Base64.getUrlDecoder().decode(obj.str("signature"))
            assertTrue(jdkVerify(RFC8032_PUBLIC, """{"a":1,"b":2}""".toByteArray(), sig), "the JDK rejects the object's signature")
            // Any base64 spelling of the key is accepted.
            for (key in listOf(kp.publicKeyB64url(), kp.publicKeyB64url().trimEnd('='), b64(RFC8032_PUBLIC))) {
                verifySignature(signed, key)
            }
            assertEquals(kp.publicKeyB64url(), publicKeyToB64url(b64(RFC8032_PUBLIC)))
            assertEquals(kp.publicKeyB64url(), publicKeyToB64url(b64(RFC8032_PUBLIC).trimEnd('=')))
            // Member order is irrelevant.
            verifySignature(obj(
                "signature" to obj.str("signature"), "b" to 2, "a" to 1,
            ).toString(), kp.publicKeyB64url())
        }

        test("readmeExample") {
            // README "Mobile": the Kotlin example, as written there.
            val kp = KeyPair.generate()
            verifySignature(kp.signObject("""{"offer":1}"""), kp.publicKeyB64url())
            assertThrows<SignatureException.InvalidSignature> {
                verifySignature(kp.signObject("""{"offer":1}""").replace(""""offer":1""", """"offer":2"""), kp.publicKeyB64url())
            }
        }

        test("signatureErrorVariants") {
            val kp = KeyPair.fromSeed(RFC8032_SEED)
            val signed = kp.signObject("""{"a": 1}""")
            assertThrows<SignatureException.InvalidSignature> {
                verifySignature(signed.replace(""""a":1""", """"a":2"""), kp.publicKeyB64url())
            }
            assertThrows<SignatureException.Encoding> { verifySignature(signed, "not base64!") }
            assertThrows<SignatureException.Encoding> { verifyDetached(kp.publicKeyB64url(), ByteArray(0), byteArrayOf(1, 2)) }
            assertThrows<SignatureException.Schema> { verifySignature("""{"a": 1}""", kp.publicKeyB64url()) }
            assertThrows<SignatureException.Json>("byte") { kp.signObject("""{"a": """) }
            assertThrows<SignatureException.InvalidArgument>("32 bytes") { KeyPair.fromSeed(ByteArray(31)) }
            // Raised only when the OS generator fails, which a test cannot cause; the variant
            // exists, is a SignatureException and carries its message.
            val e: SignatureException = SignatureException.Randomness("randomness unavailable")
            assertEquals("randomness unavailable", e.message)
            Seen.classes += e.javaClass
        }

        test("signEnvelopeReproducesDemoMessage") {
            val demo = Demo.instance
            val first = json(demo.messages[0])
            val env = Envelope(
                messageType = first.str("type"),
                id = first.str("id"),
                sessionId = first.str("session_id"),
                timestamp = first.str("timestamp"),
                from = Party(agentId = first.getValue("from").jsonObject.str("agent_id")),
                bodyJson = first.getValue("body").toString(),
                to = first.getValue("to").jsonArray.map { Party(agentId = it.jsonObject.str("agent_id")) },
                reasoning = first.getValue("reasoning").jsonPrimitive.content,
            )
            assertEquals(demo.messages[0], demoKeyPair("seller").signEnvelope(env))
            // Optional members: principal, ttl, in_reply_to, prev_hash, concordia version.
            val env2 = Envelope(
                messageType = "negotiate.signal", id = "msg_x", sessionId = "ses_x", timestamp = "2026-01-02T03:04:05Z",
                from = Party(agentId = "a", principalId = "p"), bodyJson = "{}", prevHash = hash(demo.messages[0]),
                inReplyTo = "msg_y", ttl = 60uL, concordia = "0.1.0",
            )
            val msg = json(demoKeyPair("seller").signEnvelope(env2))
            assertEquals("""{"agent_id":"a","principal_id":"p"}""", msg.getValue("from").toString())
            assertEquals("60", msg.getValue("ttl").toString())
            assertEquals("msg_y", msg.str("in_reply_to"))
            assertFalse("to" in msg || "reasoning" in msg, "absent optional members are omitted")
            verifySignature(msg.toString(), demoKeyPair("seller").publicKeyB64url())
            assertThrows<SignatureException.Encoding> { demoKeyPair("seller").signEnvelope(env2.copy(prevHash = "sha256:xyz")) }
            assertThrows<SignatureException.InvalidArgument> { demoKeyPair("seller").signEnvelope(env2.copy(ttl = 1uL shl 60)) }
        }
    }
}
