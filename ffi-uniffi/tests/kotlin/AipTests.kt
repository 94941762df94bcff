// AIP: handles, key pairs, DID Documents and routes, sealed envelopes (with the CLI as the
// other end), the replay window, credentials, trust and ranking (XCTest: AipTests).

package io.github.concordia_rs.concordia.test

import io.github.concordia_rs.concordia.AipCandidate
import io.github.concordia_rs.concordia.AipCredentialEdge
import io.github.concordia_rs.concordia.AipDidDocument
import io.github.concordia_rs.concordia.AipException
import io.github.concordia_rs.concordia.AipHandle
import io.github.concordia_rs.concordia.AipHeader
import io.github.concordia_rs.concordia.AipKeyPair
import io.github.concordia_rs.concordia.AipOpened
import io.github.concordia_rs.concordia.AipReplayCapacity
import io.github.concordia_rs.concordia.AipReplayWindow
import io.github.concordia_rs.concordia.AipRoute
import io.github.concordia_rs.concordia.AipRouteMode
import io.github.concordia_rs.concordia.AipSealHeader
import io.github.concordia_rs.concordia.AipTrustEvent
import io.github.concordia_rs.concordia.AipVerdict
import io.github.concordia_rs.concordia.KeyPair
import io.github.concordia_rs.concordia.aipDidKey
import io.github.concordia_rs.concordia.aipFinalScore
import io.github.concordia_rs.concordia.aipHandle
import io.github.concordia_rs.concordia.aipNewMessageId
import io.github.concordia_rs.concordia.aipOpen
import io.github.concordia_rs.concordia.aipParseDidDocument
import io.github.concordia_rs.concordia.aipParseEnvelope
import io.github.concordia_rs.concordia.aipParseHandle
import io.github.concordia_rs.concordia.aipRank
import io.github.concordia_rs.concordia.aipRrf
import io.github.concordia_rs.concordia.aipSeal
import io.github.concordia_rs.concordia.aipSelectRoute
import io.github.concordia_rs.concordia.aipTrustCeiling
import io.github.concordia_rs.concordia.aipTrustScore
import io.github.concordia_rs.concordia.aipTrustUpdate
import io.github.concordia_rs.concordia.aipVcIssue
import io.github.concordia_rs.concordia.aipVcVerify
import io.github.concordia_rs.concordia.aipVcVerifyProof
import io.github.concordia_rs.concordia.aipVerifyEnvelope
import io.github.concordia_rs.concordia.canonicalize
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonObject
import java.io.File
import java.nio.file.Files
import java.time.Instant
import java.util.Base64

private const val ALICE_DID = "did:aip:aigentix.org:alice"
private const val BOB_DID = "did:aip:etagi.ru:bob"
private const val AIP_CREATED = "2026-05-10T14:25:00Z"
private val AIP_NOW: Instant = Instant.parse(AIP_CREATED)
private const val REPLAY_FROM = "did:aip:aigentix.org:alice"

// RFC 7748 §6.1: Alice's X25519 private and public keys.
private val RFC7748_SECRET = hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
private val RFC7748_PUBLIC = hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
private val UUID_V4 = Regex("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")

private fun aipKeys(label: String) = AipKeyPair.fromSeeds(derive("aip-ed25519-$label"), derive("aip-x25519-$label"))

private fun didDocObject(
    did: String,
    kp: AipKeyPair,
    routeMode: String = "relay",
    endpoint: String? = null,
    vararg extra: Pair<String, Any?>,
): JsonObject {
    val (_, _, domain, name) = did.split(":")
    return obj(
        "@context" to listOf("https://www.w3.org/ns/did/v1"),
        "id" to did,
        "route_mode" to routeMode,
        "endpoint" to (endpoint ?: "https://hub.$domain/relay/$name"),
        "verificationMethod" to listOf(
            obj("id" to "$did#key-1", "type" to "Multikey", "controller" to did, "publicKeyMultibase" to kp.ed25519Multibase()),
        ),
        "keyAgreement" to listOf(
            obj("id" to "$did#x25519-1", "type" to "Multikey", "controller" to did, "publicKeyMultibase" to kp.x25519Multibase()),
        ),
    ).with(*extra)
}

private fun didDoc(did: String, kp: AipKeyPair, routeMode: String = "relay", endpoint: String? = null, vararg extra: Pair<String, Any?>) =
    didDocObject(did, kp, routeMode, endpoint, *extra).toString()

/** Object members sorted by name at every level (ASCII names: the RFC 8785 order). */
private fun sortedMembers(e: JsonElement): JsonElement = when (e) {
    is JsonObject -> JsonObject(e.toSortedMap().mapValues { sortedMembers(it.value) })
    is JsonArray -> JsonArray(e.map { sortedMembers(it) })
    else -> e
}

private fun sealHeader(
    id: String = aipNewMessageId(),
    from: String = ALICE_DID,
    messageType: String = "aip.commerce.offer.request",
    createdAt: String = AIP_CREATED,
) = AipSealHeader(id, from, messageType, createdAt)

/** Re-signs a (tampered) envelope as its sender would: Ed25519 over the canonical envelope
 *  without `sig`, unpadded base64url. */
private fun resign(envelope: JsonObject, signer: KeyPair): String {
    val unsigned = envelope.without("sig")
    val sig = signer.sign(canonicalize(unsigned.toString()).toByteArray())
    return unsigned.with("sig" to Base64.getUrlEncoder().withoutPadding().encodeToString(sig)).toString()
}

private fun credential(issuer: String): String = obj(
    "@context" to listOf("https://www.w3.org/ns/credentials/v2"),
    "id" to "urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33",
    "type" to listOf("VerifiableCredential", "AgentMembershipCredential"),
    "issuer" to issuer,
    "validFrom" to "2026-01-01T00:00:00Z",
    "validUntil" to "2099-01-01T00:00:00Z",
    "credentialSubject" to obj("id" to ALICE_DID, "memberOf" to "aigentix.org"),
).toString()

private fun <T> withTempDir(body: (File) -> T): T {
    val dir = Files.createTempDirectory("concordia-kotlin").toFile()
    try {
        return body(dir)
    } finally {
        dir.deleteRecursively()
    }
}

/** Byte-array fields compared by content (a data class compares arrays by reference). */
private fun assertDidDocument(expected: AipDidDocument, actual: AipDidDocument) {
    assertEquals(expected.copy(signingKeys = listOf(), agreementKeys = listOf()), actual.copy(signingKeys = listOf(), agreementKeys = listOf()))
    assertEquals(expected.signingKeys.map { it.hex() }, actual.signingKeys.map { it.hex() })
    assertEquals(expected.agreementKeys.map { it.hex() }, actual.agreementKeys.map { it.hex() })
}

object AipTests : Group() {
    init {
        test("handles") {
            val h = aipParseHandle("alice#aigentix.org")
            assertEquals(
                AipHandle(
                    name = "alice", domain = "aigentix.org", handle = "alice#aigentix.org", urlForm = "alice%23aigentix.org",
                    atForm = "@alice@aigentix.org", did = ALICE_DID,
                ),
                h,
            )
            // Any percent-encoding of the handle is decoded once.
            for (spelling in listOf("alice%23aigentix.org", "%61lice%23aigentix%2Eorg", "@alice@aigentix.org", ALICE_DID)) {
                assertEquals(h, aipParseHandle(spelling))
            }
            assertEquals(h, aipHandle("alice", "aigentix.org"))
            for (bad in listOf("Alice#aigentix.org", "alice#localhost", "alice", "-a#x.org", "did:aip:x.org", "alice%2523aigentix.org")) {
                assertThrows<AipException.Input> { aipParseHandle(bad) }
            }
            assertThrows<AipException.Input>("percent") { aipParseHandle("alice%2zaigentix.org") }
            assertThrows<AipException.Input>("name") { aipHandle("", "aigentix.org") }
        }

        test("keyPair") {
            val kp = aipKeys("alice")
            assertBytes(derive("aip-ed25519-alice"), kp.ed25519Seed())
            assertBytes(derive("aip-x25519-alice"), kp.x25519Secret())
            assertTrue(kp.ed25519Multibase().startsWith("z6Mk"))
            assertTrue(kp.x25519Multibase().startsWith("z6LS"))
            assertEquals("did:key:" + kp.ed25519Multibase(), kp.didKey())
            assertBytes(kp.ed25519PublicKey(), kp.signingKey().publicKey())
            assertBytes(KeyPair.fromSeed(kp.ed25519Seed()).publicKey(), kp.ed25519PublicKey())
            assertEquals(kp.didKey(), aipDidKey(kp.signingKey()))
            // RFC 7748 §6.1, and the JDK's X25519 derives the same public keys.
            assertBytes(RFC7748_PUBLIC, AipKeyPair.fromSeeds(SEED, RFC7748_SECRET).x25519PublicKey())
            assertBytes(RFC7748_PUBLIC, jdkX25519Public(RFC7748_SECRET))
            assertBytes(jdkX25519Public(kp.x25519Secret()), kp.x25519PublicKey())
            assertBytes(jdkSign(kp.ed25519Seed(), byteArrayOf(7)), kp.signingKey().sign(byteArrayOf(7)))
            val a = AipKeyPair.generate()
            val b = AipKeyPair.generate()
            assertFalse(a.ed25519Seed().contentEquals(b.ed25519Seed()))
            assertFalse(a.x25519Secret().contentEquals(b.x25519Secret()))
            assertBytes(jdkX25519Public(a.x25519Secret()), a.x25519PublicKey())
            assertThrows<AipException.Input>("32 bytes") { AipKeyPair.fromSeeds(ByteArray(31), ByteArray(32)) }
            assertThrows<AipException.Input>("32 bytes") { AipKeyPair.fromSeeds(ByteArray(32), ByteArray(33)) }
            // Raised only when the OS generator fails, which a test cannot cause.
            val e: AipException = AipException.Randomness("randomness unavailable")
            assertEquals("randomness unavailable", e.message)
            Seen.classes += e.javaClass
        }

        test("keyPairMatchesCliKeygen") {
            // `concordia aip keygen --seed` writes the multikeys, the did:key and the DID
            // Document of its keys: the same as this key pair's from those seeds.
            withTempDir { dir ->
                val endpoint = "wss://alice.aigentix.org/aip"
                val out = json(runCli(
                    "aip", "keygen", "--seed", SEED.hex(), "--did", ALICE_DID, "--doc", "$dir/alice.did.json",
                    "--endpoint", endpoint, "--route-mode", "direct",
                ))
                val kp = AipKeyPair.fromSeeds(hex(out.str("ed25519_seed_hex")), hex(out.str("x25519_secret_hex")))
                assertBytes(SEED, kp.ed25519Seed())
                assertEquals(out.str("ed25519_public_multibase"), kp.ed25519Multibase())
                assertEquals(out.str("x25519_public_multibase"), kp.x25519Multibase())
                assertEquals(out.str("did_key"), kp.didKey())
                assertEquals(File(dir, "alice.did.json").readText().trim(), kp.didDocument(ALICE_DID, AipRouteMode.DIRECT, endpoint))
            }
        }

        test("keyPairDidDocument") {
            // The core writes the subset it reads, in RFC 8785 form: the test's own document
            // minus `@context`, members sorted.
            val kp = aipKeys("bob")
            for ((mode, endpoint) in listOf(AipRouteMode.RELAY to "https://hub.etagi.ru/relay/bob", AipRouteMode.DIRECT to "wss://bob.etagi.ru/aip")) {
                val text = kp.didDocument(BOB_DID, mode, endpoint)
                val want = didDocObject(BOB_DID, kp, routeMode = mode.name.lowercase(), endpoint = endpoint).without("@context")
                assertEquals(sortedMembers(want).toString(), text)
                val doc = aipParseDidDocument(text)
                assertEquals(mode, doc.routeMode)
                assertEquals(endpoint, doc.endpoint)
                assertDidDocument(
                    AipDidDocument(BOB_DID, aipParseHandle("bob#etagi.ru"), mode, endpoint, listOf(kp.ed25519PublicKey()), listOf(kp.x25519PublicKey())),
                    doc,
                )
            }
            assertThrows<AipException.Schema>("endpoint") { kp.didDocument(BOB_DID, AipRouteMode.DIRECT, "ftp://etagi.ru/bob") }
            assertThrows<AipException.Schema>("escapes") { kp.didDocument(BOB_DID, AipRouteMode.DIRECT, "https://etagi.ru/\"bob\"") }
            assertThrows<AipException.Input>("did:aip") { kp.didDocument("did:web:etagi.ru", AipRouteMode.RELAY, "https://hub.etagi.ru/relay/bob") }
        }

        test("didDocumentAndRoute") {
            val kp = aipKeys("bob")
            val relay = didDoc(BOB_DID, kp)
            assertDidDocument(
                AipDidDocument(
                    id = BOB_DID, subject = aipParseHandle("bob#etagi.ru"), routeMode = AipRouteMode.RELAY,
                    endpoint = "https://hub.etagi.ru/relay/bob", signingKeys = listOf(kp.ed25519PublicKey()),
                    agreementKeys = listOf(kp.x25519PublicKey()),
                ),
                aipParseDidDocument(relay),
            )
            val direct = didDoc(BOB_DID, kp, routeMode = "direct", endpoint = "https://bob.etagi.ru/aip")
            assertEquals(AipRouteMode.DIRECT, aipParseDidDocument(direct).routeMode)
            for (reachable in listOf(true, false)) {
                assertEquals(AipRoute.Relay("https://hub.etagi.ru/relay/bob"), aipSelectRoute(relay, reachable))
            }
            assertEquals(AipRoute.Direct("https://bob.etagi.ru/aip"), aipSelectRoute(direct, true))
            assertEquals(AipRoute.Relay(null), aipSelectRoute(direct, false))
            assertThrows<AipException.Schema>("route_mode") { aipParseDidDocument(didDoc(BOB_DID, kp, routeMode = "carrier-pigeon")) }
            assertThrows<AipException.Schema>("endpoint") { aipSelectRoute(didDoc(BOB_DID, kp, endpoint = "ftp://etagi.ru/bob"), true) }
            assertThrows<AipException.Schema>("no Ed25519") {
                aipParseDidDocument(didDoc(BOB_DID, kp, "relay", null, "verificationMethod" to listOf<Any>()))
            }
            assertThrows<AipException.Schema>("controller") {
                aipParseDidDocument(relay.replaceFirst("\"controller\":\"$BOB_DID\"", "\"controller\":\"$ALICE_DID\""))
            }
            val five = (0 until 5).map { obj("id" to "$BOB_DID#key-$it", "controller" to BOB_DID, "type" to "Multikey", "publicKeyMultibase" to kp.ed25519Multibase()) }
            assertThrows<AipException.Limit> { aipParseDidDocument(didDoc(BOB_DID, kp, "relay", null, "verificationMethod" to five)) }
            assertThrows<AipException.Input> { aipParseDidDocument(didDoc(BOB_DID, kp, "relay", null, "id" to "did:web:etagi.ru")) }
            // An X25519 key where an Ed25519 key belongs.
            assertThrows<AipException.Input>("multikey") { aipParseDidDocument(relay.replace(kp.ed25519Multibase(), kp.x25519Multibase())) }
            assertThrows<AipException.Input>("malformed JSON") { aipParseDidDocument("""{"id": """) }
        }

        test("newMessageId") {
            val ids = List(64) { aipNewMessageId() }.toSet()
            assertEquals(64, ids.size)
            assertTrue(ids.all { UUID_V4.matches(it) }, ids.first())
        }

        test("sealOpenRoundTrip") {
            val alice = aipKeys("alice")
            val bob = aipKeys("bob")
            val aliceDoc = didDoc(ALICE_DID, alice)
            val bobDoc = didDoc(BOB_DID, bob)
            val body = """{"sku": "cam-1", "qty": 2, "note": "caf\u00e9", "price": {"amount": 1.50, "currency": "EUR"}}"""
            val canonicalBody = """{"note":"café","price":{"amount":1.5,"currency":"EUR"},"qty":2,"sku":"cam-1"}"""
            val header = sealHeader()
            assertTrue(UUID_V4.matches(header.id))
            val env = aipSeal(alice, bobDoc, header, body)
            assertEquals(listOf("created_at", "encrypted_body", "from", "id", "sig", "to", "type"), json(env).keys.toList())
            assertEquals(canonicalize(env), env)
            // The envelope's signature: Ed25519 by the sender over the envelope without `sig`.
            val sig = Base64.getUrlDecoder().decode(json(env).str("sig"))
            assertTrue(jdkVerify(alice.ed25519PublicKey(), canonicalize(json(env).without("sig").toString()).toByteArray(), sig))
            val expected = AipHeader(id = header.id, from = ALICE_DID, to = BOB_DID, messageType = header.messageType, createdAt = AIP_CREATED)
            assertEquals(expected, aipParseEnvelope(env))
            assertEquals(expected, aipVerifyEnvelope(aliceDoc, env))
            assertEquals(AipOpened(expected, canonicalBody), aipOpen(bob, aliceDoc, env, AIP_NOW, recipientDid = BOB_DID))
            // Fresh ephemeral key material each time: the same message seals differently.
            val again = aipSeal(alice, bobDoc, header, body)
            assertNotEquals(json(env).str("encrypted_body"), json(again).str("encrypted_body"))
            assertEquals(canonicalBody, aipOpen(bob, aliceDoc, again, AIP_NOW, recipientDid = BOB_DID).bodyJson)
            // A body of any size, and one that is not an object.
            val big = obj("blob" to "x".repeat(100_000)).toString()
            assertEquals(big, aipOpen(bob, aliceDoc, aipSeal(alice, bobDoc, sealHeader(), big), AIP_NOW, recipientDid = BOB_DID).bodyJson)
            assertEquals("[1,2]", aipOpen(bob, aliceDoc, aipSeal(alice, bobDoc, sealHeader(), "[1, 2]"), AIP_NOW, recipientDid = BOB_DID).bodyJson)
        }

        test("openChecksAddresseeFreshnessAndReplay") {
            val alice = aipKeys("alice")
            val bob = aipKeys("bob").withDid(BOB_DID)
            val aliceDoc = didDoc(ALICE_DID, alice)
            val env = aipSeal(alice, didDoc(BOB_DID, bob), sealHeader(), """{"offer": 2}""")
            assertEquals(BOB_DID, bob.did())
            // The addressee, as `concordia aip open` checks a key file's did.
            assertEquals("""{"offer":2}""", aipOpen(bob, aliceDoc, env, AIP_NOW).bodyJson)
            assertThrows<AipException.Binding> { aipOpen(bob.withDid("did:aip:etagi.ru:carol"), aliceDoc, env, AIP_NOW) }
            // Freshness and the replay window, in the CLI's order.
            val opened = aipOpen(bob, aliceDoc, env, AIP_NOW, null)
            assertEquals(aipOpen(bob, aliceDoc, env, skipFreshness = true), opened)
            assertThrows<AipException.Temporal> { aipOpen(bob, aliceDoc, env, AIP_NOW.plusSeconds(601), null) }
            val w = AipReplayWindow(AipReplayCapacity.SMALL)
            assertEquals(opened, aipOpen(bob, aliceDoc, env, AIP_NOW, w))
            assertThrows<AipException.Replay>("replay") { aipOpen(bob, aliceDoc, env, AIP_NOW.plusSeconds(5), w) }
            assertEquals(1uL, w.len())
            // Key files: the CLI's text, read and written byte for byte.
            val file = AipKeyPair.fromKeygenSeed(ByteArray(32) { 1 }, ALICE_DID).keyFileJson()
            assertEquals(file, AipKeyPair.fromKeyFile(file).keyFileJson())
            assertEquals(ALICE_DID, AipKeyPair.fromKeyFile(file).did())
        }

        test("tamperedEnvelopes") {
            val alice = aipKeys("alice")
            val bob = aipKeys("bob")
            val eve = aipKeys("eve")
            val aliceDoc = didDoc(ALICE_DID, alice)
            val bobDoc = didDoc(BOB_DID, bob)
            val env = aipSeal(alice, bobDoc, sealHeader(), """{"offer": 2200}""")
            val o = json(env)
            val eb = o.str("encrypted_body")
            val flipped = eb.substring(0, 10) + (if (eb[10] == 'A') "B" else "A") + eb.substring(11)
            // Any change to a signed member: the signature fails.
            for (tampered in listOf(
                o.with("encrypted_body" to flipped),
                o.with("type" to "aip.commerce.offer.accept"),
                o.with("created_at" to "2026-05-10T14:25:01Z"),
            )) {
                assertThrows<AipException.Signature> { aipOpen(bob, aliceDoc, tampered.toString(), AIP_NOW, recipientDid = BOB_DID) }
                assertThrows<AipException.Signature> { aipVerifyEnvelope(aliceDoc, tampered.toString()) }
            }
            // Re-signed by the sender with another header: the body is bound to its header (AAD).
            val moved = resign(o.with("type" to "aip.commerce.offer.accept"), alice.signingKey())
            assertEquals("aip.commerce.offer.accept", aipVerifyEnvelope(aliceDoc, moved).messageType)
            assertThrows<AipException.Signature> { aipOpen(bob, aliceDoc, moved, AIP_NOW, recipientDid = BOB_DID) }
            // The wrong recipient key; a signature by someone else; a sender document that is not `from`.
            assertThrows<AipException.Signature> { aipOpen(eve, aliceDoc, env, AIP_NOW, anyRecipient = true) }
            assertThrows<AipException.Signature> { aipOpen(bob, aliceDoc, resign(o, eve.signingKey()), AIP_NOW, recipientDid = BOB_DID) }
            assertThrows<AipException.Binding>("from") { aipOpen(bob, bobDoc, env, AIP_NOW, recipientDid = BOB_DID) }
            // Shape.
            assertThrows<AipException.Schema> { aipParseEnvelope("{}") }
            assertThrows<AipException.Schema>("unknown envelope member") { aipParseEnvelope(o.with("x" to 1).toString()) }
            assertThrows<AipException.Schema>("UUID") { aipParseEnvelope(o.with("id" to o.str("id").uppercase()).toString()) }
            assertThrows<AipException.Input>("malformed JSON") { aipOpen(bob, aliceDoc, env.dropLast(1), AIP_NOW, recipientDid = BOB_DID) }
            // Sealing: header fields, recipient document, body.
            assertThrows<AipException.Schema>("UUID") { aipSeal(alice, bobDoc, sealHeader(id = "not-a-uuid"), "{}") }
            assertThrows<AipException.Schema>("RFC 3339") { aipSeal(alice, bobDoc, sealHeader(createdAt = "2026-05-10 14:25:00"), "{}") }
            assertThrows<AipException.Schema>("type") { aipSeal(alice, bobDoc, sealHeader(messageType = "Offer"), "{}") }
            assertThrows<AipException.Input> { aipSeal(alice, bobDoc, sealHeader(from = "alice#aigentix.org"), "{}") }
            assertThrows<AipException.Schema>("keyAgreement") {
                aipSeal(alice, didDoc(BOB_DID, bob, "relay", null, "keyAgreement" to listOf<Any>()), sealHeader(), "{}")
            }
            assertThrows<AipException.Input>("malformed JSON") { aipSeal(alice, bobDoc, sealHeader(), """{"a":1,"a":2}""") }
        }

        test("envelopesInteroperateWithCli") {
            withTempDir { dir ->
                val alice = aipKeys("alice")
                val bob = aipKeys("bob")
                for ((name, did, kp) in listOf(Triple("alice", ALICE_DID, alice), Triple("bob", BOB_DID, bob))) {
                    File(dir, "$name.key.json").writeText(
                        obj("did" to did, "ed25519_seed_hex" to kp.ed25519Seed().hex(), "x25519_secret_hex" to kp.x25519Secret().hex()).toString(),
                    )
                    File(dir, "$name.did.json").writeText(didDoc(did, kp))
                }
                val body = """{"offer": {"amount": 2200, "currency": "EUR"}}"""
                // Sealed here, opened by the CLI.
                File(dir, "env1.json").writeText(aipSeal(alice, didDoc(BOB_DID, bob), sealHeader(), body))
                val opened = runCli(
                    "aip", "open", "--key", "$dir/bob.key.json", "--from", "$dir/alice.did.json", "--now", AIP_CREATED, "$dir/env1.json",
                )
                assertEquals("""{"offer":{"amount":2200,"currency":"EUR"}}""", opened.trim())
                // Sealed by the CLI, opened here.
                File(dir, "body.json").writeText(body)
                val env = runCli("aip", "seal", "--to", "$dir/alice.did.json", "--key", "$dir/bob.key.json", "--type", "aip.reply", "$dir/body.json")
                val back = aipOpen(alice, didDoc(BOB_DID, bob), env, recipientDid = ALICE_DID)
                assertEquals(canonicalize(body), back.bodyJson)
                assertEquals(listOf(BOB_DID, ALICE_DID, "aip.reply"), listOf(back.header.from, back.header.to, back.header.messageType))
            }
        }

        test("keyFilesAreTheClis") {
            // examples/aip/alice.key.json was written by `concordia aip keygen --seed 0101...01
            // --did ...`: both constructors read or make it byte for byte, with the did.
            val text = File(root, "examples/aip/alice.key.json").readText()
            val kp = AipKeyPair.fromKeyFile(text)
            assertEquals(ALICE_DID, kp.did())
            assertEquals(text, kp.keyFileJson())
            assertEquals(text, AipKeyPair.fromKeygenSeed(ByteArray(32) { 1 }, ALICE_DID).keyFileJson())
            val doc = json(File(root, "examples/aip/alice.doc.json").readText())
            assertEquals(sortedMembers(doc.without("@context")).toString(), kp.didDocument(ALICE_DID, AipRouteMode.RELAY, doc.str("endpoint")))
            val out = runCli("aip", "keygen", "--seed", SEED.hex())
            val noDid = AipKeyPair.fromKeygenSeed(SEED, null)
            assertEquals(null, noDid.did())
            assertEquals(out, noDid.keyFileJson())
            assertBytes(SEED, AipKeyPair.fromKeyFile(out).ed25519Seed())
            assertEquals(BOB_DID, noDid.withDid(BOB_DID).did())
            assertEquals(null, noDid.did())
            assertThrows<AipException.Schema>("ed25519_seed_hex") { AipKeyPair.fromKeyFile("""{"did": "$BOB_DID"}""") }
            assertThrows<AipException.Schema>("x25519_secret_hex") { AipKeyPair.fromKeyFile(obj("ed25519_seed_hex" to SEED.hex()).toString()) }
            assertThrows<AipException.Input>("hex") {
                AipKeyPair.fromKeyFile(obj("ed25519_seed_hex" to "zz", "x25519_secret_hex" to SEED.hex()).toString())
            }
            assertThrows<AipException.Input> { AipKeyPair.fromKeygenSeed("short".toByteArray(), null) }
            assertThrows<AipException.Input> { noDid.withDid("did:web:example.com") }
            assertThrows<AipException.Input> { AipKeyPair.fromKeygenSeed(SEED, "alice#aigentix.org") }
        }

        test("openChecksTheAddresseeAsTheCli") {
            val alice = aipKeys("alice")
            val bob = aipKeys("bob")
            val aliceDoc = didDoc(ALICE_DID, alice)
            val env = aipSeal(alice, didDoc(BOB_DID, bob), sealHeader(), """{"offer": 1}""")
            // Bob's keys under Bob's did open it; under another did (same X25519 key) they do not.
            assertEquals("""{"offer":1}""", aipOpen(bob.withDid(BOB_DID), aliceDoc, env, AIP_NOW).bodyJson)
            assertThrows<AipException.Binding> { aipOpen(bob.withDid("did:aip:etagi.ru:carol"), aliceDoc, env, AIP_NOW) }
            // The CLI opens it with Bob's key file and refuses it (exit 1) with the other did's.
            withTempDir { dir ->
                File(dir, "env.json").writeText(env)
                File(dir, "alice.doc.json").writeText(aliceDoc)
                for ((did, status) in listOf(BOB_DID to 0, "did:aip:etagi.ru:carol" to 1)) {
                    File(dir, "key.json").writeText(bob.withDid(did).keyFileJson())
                    val p = ProcessBuilder(cli, "aip", "open", "--key", "$dir/key.json", "--from", "$dir/alice.doc.json",
                        "--now", AIP_CREATED, "$dir/env.json").redirectErrorStream(true).start()
                    p.inputStream.readBytes()
                    assertEquals(status, p.waitFor(), did)
                }
            }
        }

        test("openFreshnessAndReplay") {
            val alice = aipKeys("alice")
            val bob = aipKeys("bob").withDid(BOB_DID)
            val aliceDoc = didDoc(ALICE_DID, alice)
            val env = aipSeal(alice, didDoc(BOB_DID, bob), sealHeader(), """{"offer": 2}""")
            val opened = aipOpen(bob, aliceDoc, env, AIP_NOW)
            assertEquals(aipOpen(bob, aliceDoc, env, skipFreshness = true), opened)
            assertEquals("""{"offer":2}""", aipOpen(bob, aliceDoc, env, AIP_NOW.plusSeconds(600)).bodyJson)
            assertThrows<AipException.Temporal> { aipOpen(bob, aliceDoc, env, AIP_NOW.plusSeconds(601)) }
            assertThrows<AipException.Temporal> { aipOpen(bob, aliceDoc, env, AIP_NOW.minusSeconds(301)) }
            AipReplayWindow(AipReplayCapacity.SMALL).use { w ->
                // A tampered copy is refused and not remembered.
                val o = json(env)
                assertThrows<AipException.Signature> { aipOpen(bob, aliceDoc, o.with("type" to "aip.other").toString(), AIP_NOW, w) }
                assertEquals(0uL, w.len())
                assertEquals(opened, aipOpen(bob, aliceDoc, env, AIP_NOW, w))
                assertThrows<AipException.Replay>("replay") { aipOpen(bob, aliceDoc, env, AIP_NOW.plusSeconds(5), w) }
                assertTrue(w.contains(o.str("from"), o.str("id")))
                assertEquals(1uL, w.len())
            }
            assertThrows<AipException.Binding> { aipOpen(bob.withDid("did:aip:etagi.ru:carol"), aliceDoc, env, AIP_NOW) }
        }

        test("openDefaultsAreSafeAndOptOutsNamed") {
            // Issue 32: freshness at the clock by default (a 2019 envelope is refused), the
            // recipient's DID required (or the addressee check skipped by name), and a stale
            // envelope with a tampered body is a signature failure, as on every surface.
            val alice = aipKeys("alice")
            val bob = aipKeys("bob")
            val aliceDoc = didDoc(ALICE_DID, alice)
            val old = aipSeal(alice, didDoc(BOB_DID, bob), sealHeader(createdAt = "2019-06-01T12:00:00Z"), """{"offer": 3}""")
            assertThrows<AipException.Input>("did:aip is required") { aipOpen(bob, aliceDoc, old) }
            assertThrows<AipException.Temporal> { aipOpen(bob, aliceDoc, old, recipientDid = BOB_DID) }
            assertThrows<AipException.Temporal> { aipOpen(bob.withDid(BOB_DID), aliceDoc, old) }
            assertEquals("""{"offer":3}""", aipOpen(bob, aliceDoc, old, recipientDid = BOB_DID, skipFreshness = true).bodyJson)
            assertEquals("""{"offer":3}""", aipOpen(bob, aliceDoc, old, anyRecipient = true, skipFreshness = true).bodyJson)
            assertThrows<AipException.Input> { aipOpen(bob, aliceDoc, old, recipientDid = BOB_DID, anyRecipient = true) }
            val o = json(old)
            val eb = o.str("encrypted_body")
            val tampered = o.with("encrypted_body" to eb.substring(0, 10) + (if (eb[10] == 'A') "B" else "A") + eb.substring(11)).toString()
            assertThrows<AipException.Signature> { aipOpen(bob, aliceDoc, tampered, recipientDid = BOB_DID) }
        }

        test("vcVerifyProof") {
            val issuer = aipKeys("registry").signingKey()
            val did = aipDidKey(issuer)
            val signed = aipVcIssue(issuer, credential(did), "2026-01-01T00:00:00Z")
            val p = aipVcVerifyProof(signed)
            assertEquals(json(signed).getValue("proof").jsonObject.str("verificationMethod"), p.verificationMethod)
            assertBytes(issuer.publicKey(), p.publicKey)
            // The CLI's --proof-only agrees.
            withTempDir { dir ->
                File(dir, "vc.json").writeText(signed)
                runCli("aip", "vc", "verify", "--proof-only", "$dir/vc.json")
            }
            val tampered = json(signed).with("validFrom" to "2026-01-02T00:00:00Z")
            assertThrows<AipException.Signature> { aipVcVerifyProof(tampered.toString()) }
            assertThrows<AipException.Schema> { aipVcVerifyProof(credential(did)) }
        }

        test("replayWindow") {
            val w = AipReplayWindow(AipReplayCapacity.SMALL)
            assertEquals(1024uL, w.capacity())
            assertEquals(0uL, w.len())
            assertTrue(w.isEmpty())
            val a = aipNewMessageId()
            val b = aipNewMessageId()
            assertEquals(AipVerdict.FRESH, w.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW))
            assertEquals(AipVerdict.DUPLICATE, w.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW.plusSeconds(5)))
            assertTrue(w.contains(REPLAY_FROM, a) && !w.contains(REPLAY_FROM, b) && w.len() == 1uL && !w.isEmpty())
            // created_at may be up to 300 s ahead of now and 600 s behind it (inclusive).
            assertEquals(AipVerdict.FRESH, w.check(REPLAY_FROM, b, "2026-05-10T14:30:05Z", AIP_NOW.plusSeconds(5)))
            assertThrows<AipException.Temporal>("future") { w.check(REPLAY_FROM, aipNewMessageId(), "2026-05-10T14:30:06Z", AIP_NOW.plusSeconds(5)) }
            assertThrows<AipException.Temporal>("older") { w.check(REPLAY_FROM, aipNewMessageId(), "2026-05-10T14:14:59Z", AIP_NOW.plusSeconds(1)) }
            // A refused check changes nothing, its clock included.
            val later = AIP_NOW.plusSeconds(601)
            assertThrows<AipException.Temporal> { w.check(REPLAY_FROM, a, AIP_CREATED, later) }
            assertTrue(w.contains(REPLAY_FROM, a))
            assertEquals(AipVerdict.DUPLICATE, w.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW))
            // The next accepted check at that time evicts it.
            assertEquals(AipVerdict.FRESH, w.check(REPLAY_FROM, aipNewMessageId(), "2026-05-10T14:30:00Z", later))
            assertFalse(w.contains(REPLAY_FROM, a))
            assertTrue(w.contains(REPLAY_FROM, b))
            // Full: every slot holds an id still inside the window.
            val full = AipReplayWindow(AipReplayCapacity.SMALL)
            for (i in 0 until 1024) {
                assertEquals(AipVerdict.FRESH, full.check(REPLAY_FROM, "00000000-0000-4000-8000-%012x".format(i), AIP_CREATED, AIP_NOW))
            }
            assertThrows<AipException.Limit> { full.check(REPLAY_FROM, aipNewMessageId(), AIP_CREATED, AIP_NOW) }
            assertEquals(1024uL, full.len())
            assertEquals(AipVerdict.DUPLICATE, full.check(REPLAY_FROM, "00000000-0000-4000-8000-000000000000", AIP_CREATED, AIP_NOW))
            assertThrows<AipException.Schema>("UUID") { w.contains(REPLAY_FROM, "not-a-uuid") }
            assertThrows<AipException.Schema>("RFC 3339") { w.check(REPLAY_FROM, aipNewMessageId(), "yesterday", AIP_NOW) }
            full.close()
            w.close()
        }

        test("replayWindowSnapshotRestoreAndColdStart") {
            val w = AipReplayWindow(AipReplayCapacity.SMALL)
            val a = aipNewMessageId()
            assertEquals(AipVerdict.FRESH, w.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW))
            val snap = w.snapshot()
            assertEquals(76 + 28, snap.size)
            val r = AipReplayWindow(AipReplayCapacity.SMALL)
            r.restore(snap, AIP_NOW)
            assertEquals(AipVerdict.DUPLICATE, r.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW))
            assertFalse(r.isColdStarted())
            assertBytes(snap.copyOfRange(16, snap.size - 32), r.snapshot().let { it.copyOfRange(16, it.size - 32) })
            // Truncated, bit-flipped or foreign bytes are refused and the window starts cold:
            // envelopes created at or before `now` are refused until a full window has passed.
            val flipped = snap.copyOf().also { it[0] = (it[0].toInt() xor 1).toByte() }
            for (bad in listOf(snap.copyOf(snap.size - 1), flipped, ByteArray(0), ByteArray(200))) {
                val cold = AipReplayWindow(AipReplayCapacity.SMALL)
                assertThrows<AipException.Input>("snapshot") { cold.restore(bad, AIP_NOW) }
                assertTrue(cold.isColdStarted())
                assertEquals(0uL, cold.len())
                assertThrows<AipException.Temporal>("cold-start guard") { cold.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW) }
            }
            // Nothing to restore: a cold start, or the explicit opt-out.
            val fresh = AipReplayWindow(AipReplayCapacity.SMALL)
            fresh.coldStart(AIP_NOW)
            assertThrows<AipException.Temporal> { fresh.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW) }
            fresh.endColdStart()
            assertEquals(AipVerdict.FRESH, fresh.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW))
        }

        test("replayWindowOnSmallStack") {
            // The large windows are allocated in place, never on the caller's stack: a thread
            // with a 256 KiB stack (Android's default for new threads is about 1 MiB) creates
            // the 3 MiB window.
            val made = mutableListOf<Pair<ULong, ULong>>()
            var failure: Throwable? = null
            val t = Thread(null, {
                try {
                    for (capacity in listOf(AipReplayCapacity.MEDIUM, AipReplayCapacity.LARGE)) {
                        AipReplayWindow(capacity).use { w ->
                            w.check(REPLAY_FROM, aipNewMessageId(), AIP_CREATED, AIP_NOW)
                            made += w.capacity() to w.len()
                        }
                    }
                } catch (e: Throwable) {
                    failure = e
                }
            }, "small-stack", 256L * 1024)
            t.start()
            t.join()
            assertEquals(null, failure)
            assertEquals(listOf(16384uL to 1uL, 65536uL to 1uL), made)
        }

        test("verifiableCredentials") {
            val issuer = aipKeys("registry").signingKey()
            val did = aipDidKey(issuer)
            val signed = aipVcIssue(issuer, credential(did), "2026-01-01T00:00:00Z")
            val proof = json(signed).getValue("proof").jsonObject
            assertEquals(
                listOf("DataIntegrityProof", "eddsa-jcs-2022", "assertionMethod"),
                listOf(proof.str("type"), proof.str("cryptosuite"), proof.str("proofPurpose")),
            )
            assertEquals(did + "#" + did.removePrefix("did:key:"), proof.str("verificationMethod"))
            assertTrue(proof.str("proofValue").startsWith("z"))
            assertEquals(canonicalize(signed), signed)
            val v = aipVcVerify(signed, listOf(did), listOf(), AIP_NOW)
            assertEquals(did, v.issuer)
            assertEquals(ALICE_DID, v.subject)
            assertBytes(issuer.publicKey(), v.publicKey)
            val unanchored = aipVcVerify(signed) // no anchors, no revocations, the OS clock
            assertEquals(listOf(v.issuer, v.subject, v.publicKey.hex()), listOf(unanchored.issuer, unanchored.subject, unanchored.publicKey.hex()))
            assertNotEquals(signed, aipVcIssue(issuer, credential(did))) // without `created`
            aipVcVerify(aipVcIssue(issuer, credential(did)), now = AIP_NOW)
            // The CLI accepts what this issued.
            withTempDir { dir ->
                File(dir, "vc.json").writeText(signed)
                runCli("aip", "vc", "verify", "--now", AIP_CREATED, "$dir/vc.json")
            }
            val other = aipDidKey(aipKeys("other").signingKey())
            assertThrows<AipException.Binding>("anchor") { aipVcVerify(signed, listOf(other)) }
            assertThrows<AipException.Binding>("revoked") { aipVcVerify(signed, revoked = listOf("urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33")) }
            assertThrows<AipException.Temporal>("expired") { aipVcVerify(signed, now = Instant.parse("2099-01-01T00:00:01Z")) }
            aipVcVerify(signed, checkTime = false) // the time off, by name only
            assertThrows<AipException.Input>("exclude each other") { aipVcVerify(signed, now = AIP_NOW, checkTime = false) }
            // Issue 32: a revoked id respelled with a JSON escape stays revoked; domain and
            // challenge can be required (this proof has neither).
            val escaped = signed.replaceFirst("urn:uuid:5", "urn:uuid:\\u0035")
            assertNotEquals(signed, escaped)
            aipVcVerify(escaped)
            assertThrows<AipException.Binding>("credential is revoked") { aipVcVerify(escaped, revoked = listOf("urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33")) }
            assertThrows<AipException.Schema>("credentialSubject.id must be written without JSON escapes") { aipVcVerify(signed.replaceFirst(ALICE_DID, "\\u0064" + ALICE_DID.drop(1))) }
            assertThrows<AipException.Binding>("domain") { aipVcVerify(signed, domain = "example.org") }
            assertThrows<AipException.Binding>("challenge") { aipVcVerify(signed, challenge = "n-0S6") }
            assertThrows<AipException.Temporal>("not yet valid") { aipVcVerify(signed, now = Instant.parse("2025-12-31T00:00:00Z")) }
            val tampered = json(signed).let { it.with("credentialSubject" to it.getValue("credentialSubject").jsonObject.with("id" to BOB_DID)) }
            assertThrows<AipException.Signature> { aipVcVerify(tampered.toString()) }
            assertThrows<AipException.Schema>("proof") { aipVcVerify(credential(did)) }
            assertThrows<AipException.Schema>("already has a proof") { aipVcIssue(issuer, signed) }
            assertThrows<AipException.Input>("issuer") { aipVcIssue(issuer, credential(other)) }
            assertThrows<AipException.Input>("malformed JSON") { aipVcVerify("{") }
        }

        test("trustAndRanking") {
            val anchor = "did:aip:aigentix.org:registry"
            val broker = "did:aip:aigentix.org:broker"
            val edges = listOf(AipCredentialEdge(anchor, broker), AipCredentialEdge(broker, ALICE_DID))
            assertEquals(1.0, aipTrustCeiling(anchor, edges, listOf(anchor)))
            assertEquals(0.5, aipTrustCeiling(broker, edges, listOf(anchor)))
            assertEquals(0.25, aipTrustCeiling(ALICE_DID, edges, listOf(anchor)))
            assertEquals(0.0, aipTrustCeiling(ALICE_DID, listOf(edges[0], AipCredentialEdge(broker, ALICE_DID, revoked = true)), listOf(anchor)))
            assertEquals(0.0, aipTrustCeiling(ALICE_DID, edges, listOf()))
            assertThrows<AipException.Limit> { aipTrustCeiling(ALICE_DID, List(129) { edges }.flatten(), listOf(anchor)) }
            assertClose(0.025, aipTrustUpdate(0.0, 0.5, AipTrustEvent.SUCCESS))
            assertClose(0.2, aipTrustUpdate(0.4, 0.5, AipTrustEvent.FAILURE))
            assertEquals(0.0, aipTrustUpdate(0.4, 0.5, AipTrustEvent.REVOCATION))
            assertEquals(0.5, aipTrustUpdate(0.9, 0.5, AipTrustEvent.SUCCESS)) // never above the ceiling
            val history = listOf(AipTrustEvent.SUCCESS, AipTrustEvent.SUCCESS, AipTrustEvent.FAILURE)
            assertClose((0.025 + 0.05 * (0.5 - 0.025)) * 0.5, aipTrustScore(0.5, history))
            assertEquals(0.0, aipTrustScore(0.5, listOf()))
            // RRF with k = 60 and the trust weight 0.3.
            assertClose(2.0 / 61, aipRrf(1u, 1u))
            assertClose(1.0 / 63, aipRrf(ftsRank = 3u))
            assertEquals(0.0, aipRrf())
            assertClose(2.0 / 61 * 1.15, aipFinalScore(2.0 / 61, 0.5))
            assertThrows<AipException.Input>("ranks start at 1") { aipRrf(0u, 1u) }
            assertThrows<AipException.Input>("trust_score") { aipFinalScore(0.1, 1.5) }
            val ranked = aipRank(listOf(
                AipCandidate(2u, null, 0.0),
                AipCandidate(1u, 1u, 0.0),
                AipCandidate(2u, null, 1.0),
                AipCandidate(null, null, 0.5),
            ))
            assertEquals(listOf(1uL, 2uL, 0uL, 3uL), ranked.map { it.index })
            assertClose(2.0 / 61, ranked[0].rrf)
            assertClose(2.0 / 61, ranked[0].finalScore)
            assertClose(1.0 / 62 * 1.3, ranked[1].finalScore)
            assertEquals(0.0, ranked[3].finalScore)
            assertEquals(listOf(), aipRank(listOf()))
            assertThrows<AipException.Input> { aipRank(listOf(AipCandidate(1u, null, Double.NaN))) }
        }
    }
}
