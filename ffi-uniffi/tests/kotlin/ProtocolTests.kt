// Conformance profiles, transcripts, sessions and attestations (XCTest: ProtocolTests).

package io.github.concordia_rs.concordia.test

import io.github.concordia_rs.concordia.AttestationParams
import io.github.concordia_rs.concordia.AttestationVerified
import io.github.concordia_rs.concordia.Envelope
import io.github.concordia_rs.concordia.Party
import io.github.concordia_rs.concordia.ProtocolException
import io.github.concordia_rs.concordia.Role
import io.github.concordia_rs.concordia.Session
import io.github.concordia_rs.concordia.SessionState
import io.github.concordia_rs.concordia.SetBinding
import io.github.concordia_rs.concordia.Signer
import io.github.concordia_rs.concordia.Timing
import io.github.concordia_rs.concordia.TranscriptSummary
import io.github.concordia_rs.concordia.TranscriptVerifier
import io.github.concordia_rs.concordia.Validity
import io.github.concordia_rs.concordia.generateAttestation
import io.github.concordia_rs.concordia.hash
import io.github.concordia_rs.concordia.profileNames
import io.github.concordia_rs.concordia.verifyAttestation
import io.github.concordia_rs.concordia.verifyProfile
import io.github.concordia_rs.concordia.verifyTranscript
import io.github.concordia_rs.concordia.verifyTranscriptFile
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import java.io.File
import java.nio.file.Files

object ProtocolTests : Group() {
    private fun replay(demo: Demo, registerKeys: Boolean): Pair<Session, List<SessionState>> {
        val sid = json(demo.messages[0]).str("session_id")
        val s = Session(sid, START, Timing())
        s.addParty(SELLER, Role.INITIATOR, if (registerKeys) demoKeyPair("seller").publicKeyB64url() else null)
        s.addParty(BUYER, Role.RESPONDER, if (registerKeys) demoKeyPair("buyer").publicKeyB64url() else null)
        val states = demo.messages.mapIndexed { i, m -> s.apply(m, at(i), if (registerKeys) null else demo.keys) }
        return s to states
    }

    private fun demoParams(): AttestationParams {
        val end = START.plusSeconds(45L * 7)
        return AttestationParams(
            attestationId = "att_" + derive("attestation").copyOf(4).hex(),
            now = end,
            validity = Validity.Absolute(from = end, until = end.plusSeconds(90L * 86400)),
            resolutionMechanism = "direct",
            category = "electronics.cameras",
            valueRange = "1000-5000_USD",
        )
    }

    private fun signers() = listOf(Signer(SELLER, demoKeyPair("seller")), Signer(BUYER, demoKeyPair("buyer")))

    init {
        test("conformanceSuiteThroughVerifyProfile") {
            val names = profileNames()
            assertEquals(22, names.size)
            assertEquals("decision-object-v1", names[0])
            val manifest = json(File(root, "conformance/vectors/manifest.json").readText())
            val files = manifest.getValue("files").jsonObject
            val counts = linkedMapOf("positive" to 0, "mutation" to 0, "canary" to 0)
            var ok = 0
            var failed = 0
            var withClass = 0
            var classAgrees = 0
            var digestRejections = 0
            for (section in counts.keys.toList()) {
                for (rel in files.getValue(section).jsonArray) {
                    counts[section] = counts.getValue(section) + 1
                    val v = json(File(root, rel.jsonPrimitive.content).readText())
                    var got = "accept"
                    var klass: String? = null
                    try {
                        verifyProfile(v.str("verification_profile"), v.getValue("input").toString(), v.getValue("context").toString())
                    } catch (e: ProtocolException) {
                        got = "reject"
                        klass = e.javaClass.simpleName.lowercase()
                        if (e is ProtocolException.Digest) {
                            digestRejections += 1
                            Seen.classes += e.javaClass
                        }
                    }
                    if (got == v.str("expected")) ok += 1 else {
                        failed += 1
                        println("  [VECTOR] ${v.str("id")} expected=${v.str("expected")} got=$got")
                    }
                    val expectedClass = (v["expected_reason_class"] as? kotlinx.serialization.json.JsonPrimitive)?.content
                    if (got == "reject" && expectedClass != null) {
                        withClass += 1
                        if (klass == expectedClass) classAgrees += 1
                    }
                }
            }
            val line = "[SUMMARY] positive=${counts["positive"]} mutation=${counts["mutation"]} " +
                "canary=${counts["canary"]} ok=$ok fail=$failed"
            println("  $line")
            println("  [CLASSES] rejections with expected_reason_class=$withClass agreeing=$classAgrees")
            assertEquals("[SUMMARY] positive=53 mutation=1488 canary=5 ok=1546 fail=0", line)
            assertTrue(digestRejections > 0, "no vector was rejected as Digest")
        }

        test("protocolErrorVariants") {
            val demo = Demo.instance
            assertThrows<ProtocolException.Input>("unknown verification profile") { verifyProfile("no-such-profile-v1", "{}", "{}") }
            assertThrows<ProtocolException.Input>("malformed JSON") { TranscriptVerifier(demo.keys).push("""{"a":""") }
            val s = Session("ses_limit", START)
            for (i in 0 until 8) s.addParty("agent-$i", Role.WITNESS)
            assertThrows<ProtocolException.Limit> { s.addParty("agent-8", Role.WITNESS) }
            assertThrows<ProtocolException.Schema> { TranscriptVerifier(demo.keys).push("{}") }
            assertThrows<ProtocolException.Signature> {
                TranscriptVerifier(demo.keys).push(demo.messages[0].replace("2200", "2100"))
            }
            assertThrows<ProtocolException.Signature>("no public key") { TranscriptVerifier("{}").push(demo.messages[0]) }
            assertThrows<ProtocolException.Binding> { TranscriptVerifier(demo.keys).push(demo.messages[1]) }
            val late = Session(json(demo.messages[0]).str("session_id"), START)
            assertThrows<ProtocolException.Temporal>("session expired") {
                late.apply(demo.messages[0], START.plusSeconds(2L * 86400), demo.keys)
            }
            late.apply(demo.messages[0], at(0), demo.keys)
            val params = AttestationParams(attestationId = "att_1", now = at(1), validity = Validity.Relative(at(1), 60u))
            assertThrows<ProtocolException.Transition>("concluded") { generateAttestation(late, params, listOf()) }
            // Digest: conformanceSuiteThroughVerifyProfile; Privacy: generateAttestationMatchesCli.
        }

        test("transcriptVerifierOnDemo") {
            val demo = Demo.instance
            val att = json(demo.attestation)
            TranscriptVerifier(demo.keys).use { v ->
                assertEquals(0uL, v.count())
                assertEquals(GENESIS, v.head())
                val hashes = demo.messages.map { v.push(it) }
                assertEquals(demo.messages.map { hash(it) }, hashes)
                assertEquals(6uL, v.count())
                assertEquals("6", att.getValue("message_count").toString())
                assertEquals(att.str("chain_head"), v.head())
                assertEquals(hashes.last(), v.head())
                // A failed push leaves the verifier unchanged.
                assertThrows<ProtocolException.Binding> { v.push(demo.messages[0]) }
                assertEquals(6uL, v.count())
            }
            assertEquals(TranscriptSummary(6uL, att.str("chain_head")), verifyTranscript(demo.transcript, demo.keys))
            val swapped = "[" + listOf(demo.messages[0], demo.messages[2]).joinToString(",") + "]"
            assertThrows<ProtocolException.Binding>("message 1") { verifyTranscript(swapped, demo.keys) }
            assertThrows<ProtocolException.Schema>("keys must be an object") { TranscriptVerifier("[]") }
        }

        test("verifyTranscriptFile") {
            val demo = Demo.instance
            val dir = Files.createTempDirectory("concordia-kotlin").toFile()
            try {
                fun file(name: String, text: String) = File(dir, name).apply { writeText(text) }.path
                val want = TranscriptSummary(6uL, json(demo.attestation).str("chain_head"))
                val msgs = demo.messages
                val array = file("transcript.json", demo.transcript)
                assertEquals(want, verifyTranscriptFile(array, demo.keys, false))
                assertEquals(want, verifyTranscriptFile(file("t.jsonl", msgs.joinToString("\n\n") + "\n"), demo.keys, true))
                assertEquals(want, verifyTranscriptFile(file("w.json", """{"messages":""" + demo.transcript + "}"), demo.keys, false))
                assertEquals(TranscriptSummary(0uL, GENESIS), verifyTranscriptFile(file("empty.json", "[]"), demo.keys, false))
                val skip = "[" + msgs[0] + "," + msgs[2] + "]"
                assertThrows<ProtocolException.Binding>("message 1") { verifyTranscriptFile(file("skip.json", skip), demo.keys, false) }
                assertThrows<ProtocolException.Binding>("message 1") {
                    verifyTranscriptFile(file("skip.jsonl", msgs[0] + "\n" + msgs[2] + "\n"), demo.keys, true)
                }
                // ... but a file malformed after it is malformed (the whole file's verdict).
                assertThrows<ProtocolException.Input>("at byte ${skip.toByteArray().size}:") {
                    verifyTranscriptFile(file("broken.json", "$skip,"), demo.keys, false)
                }
                assertThrows<ProtocolException.Input>("line 2") {
                    verifyTranscriptFile(file("bad.jsonl", msgs[0] + "\n{\n"), demo.keys, true)
                }
                assertThrows<ProtocolException.Schema> {
                    verifyTranscriptFile(file("object.json", """{"messages": 1}"""), demo.keys, false)
                }
                assertThrows<ProtocolException.Input>("missing.json") {
                    verifyTranscriptFile(File(dir, "missing.json").path, demo.keys, false)
                }
                assertThrows<ProtocolException.Schema>("keys must be an object") { verifyTranscriptFile(array, "[]", false) }
            } finally {
                dir.deleteRecursively()
            }
        }

        test("sessionReplaysDemo") {
            val demo = Demo.instance
            val att = json(demo.attestation)
            var last: Session? = null
            for (register in listOf(true, false)) {
                val (s, states) = replay(demo, register)
                val (proposed, active, agreed) = listOf(SessionState.PROPOSED, SessionState.ACTIVE, SessionState.AGREED)
                assertEquals(listOf(proposed, active, active, active, active, agreed), states)
                assertEquals(SessionState.AGREED, s.state())
                assertEquals(3u, s.roundCount())
                assertEquals(6uL, s.messageCount())
                assertEquals(att.str("chain_head"), s.tip())
                assertEquals(att.str("transcript_hash"), s.transcriptHash())
                assertEquals(att.str("session_id"), s.id())
                assertEquals(Timing(86400u, 3600u, 20u), s.timing())
                assertEquals(START, s.createdAt())
                assertEquals(at(5), s.concludedAt())
                assertFalse(s.isReactivatable())
                val (seller, buyer) = s.parties()
                assertEquals(listOf(Role.INITIATOR, Role.RESPONDER), s.parties().map { it.role })
                assertEquals(SELLER, seller.agentId)
                assertEquals(listOf(2u, 1u), s.parties().map { it.offersMade })
                assertEquals(register, seller.publicKey != null)
                if (register) assertEquals(demoKeyPair("seller").publicKeyB64url(), seller.publicKey)
                // As `concordia demo` prints them: the conditional counter names no single price.
                assertEquals(listOf(0u, 0u), listOf(seller.concessions, buyer.concessions))
                assertEquals(0.0, seller.concessionMagnitude)
                assertTrue(seller.reasoningProvided && buyer.reasoningProvided && !buyer.withdrawal)
                last = s
            }
            // A message after AGREED is refused and leaves the session as it was: the same
            // message again does not link; a new offer that links is not a legal transition.
            val s = last!!
            val tip = s.tip()
            assertThrows<ProtocolException.Binding>("prev_hash") { s.apply(demo.messages[5], at(6), demo.keys) }
            val offer = json(demo.messages[2])
            val late = Envelope(
                messageType = offer.str("type"), id = "msg_after_agreement", sessionId = offer.str("session_id"),
                timestamp = at(6).toString(), from = Party(SELLER), bodyJson = offer.getValue("body").toString(),
                to = listOf(Party(BUYER)), prevHash = tip,
            )
            assertEquals("negotiate.offer", late.messageType)
            assertThrows<ProtocolException.Transition>("negotiate.offer") {
                s.apply(demoKeyPair("seller").signEnvelope(late), at(6), demo.keys)
            }
            assertEquals(tip, s.tip())
            assertEquals(6uL, s.messageCount())
            assertEquals(SessionState.AGREED, s.state())
            s.close()
        }

        test("sessionExpireAndDormant") {
            val s = Session("ses_exp", START)
            assertEquals(Timing(86400u, 3600u, 20u), s.timing())
            assertEquals(null, s.concludedAt())
            s.addParty(SELLER, Role.MEDIATOR)
            s.addParty(SELLER, Role.INITIATOR) // re-registering updates the role
            assertEquals(listOf(Role.INITIATOR), s.parties().map { it.role })
            s.expire(START.plusSeconds(2L * 86400))
            assertEquals(SessionState.EXPIRED, s.state())
            s.makeDormant()
            assertEquals(SessionState.DORMANT, s.state())
            assertTrue(s.isReactivatable())
            assertThrows<ProtocolException.Transition> { s.expire(START) }
            assertThrows<ProtocolException.Input>("too long") { Session("x".repeat(129), START) }
            assertThrows<ProtocolException.Input> { s.addParty("x", Role.WITNESS, "not a key") }
        }

        test("generateAttestationMatchesCli") {
            val demo = Demo.instance
            val (s, _) = replay(demo, registerKeys = true)
            val att = generateAttestation(s, demoParams(), signers())
            // Same session, same keys, same parameters: byte for byte what the CLI wrote.
            assertEquals(demo.attestation, att + "\n")
            assertEquals(
                AttestationVerified(2u, 2u, SetBinding.BOUND),
                verifyAttestation(att, demo.keys, demo.transcript),
            )
            assertEquals(SetBinding.UNCHECKED, verifyAttestation(att, demo.keys).binding)
            // One signer only: the other party's signature is empty and it does not countersign.
            val half = json(generateAttestation(s, demoParams(), signers().take(1)))
            assertEquals(setOf(SELLER), half.getValue("countersignatures").jsonObject.keys)
            for (validity in listOf(
                Validity.Relative(at(6), 3600u),
                Validity.Window(at(6), at(6).plusSeconds(30L * 86400), 86400u),
            )) {
                val v = verifyAttestation(generateAttestation(s, demoParams().copy(validity = validity), signers()), demo.keys)
                assertEquals(AttestationVerified(2u, 2u, SetBinding.UNCHECKED), v)
            }
            assertThrows<ProtocolException.Privacy> {
                generateAttestation(s, demoParams().copy(attestationId = "att \$2050"), signers())
            }
            assertThrows<ProtocolException.Input> {
                generateAttestation(s, demoParams().copy(resolutionMechanism = "coin-toss"), signers())
            }
        }

        test("verifyDemoAttestation") {
            val demo = Demo.instance
            val att = json(demo.attestation)
            assertEquals(SetBinding.BOUND, verifyAttestation(demo.attestation, demo.keys, demo.transcript).binding)
            assertEquals(AttestationVerified(2u, 2u, SetBinding.UNCHECKED), verifyAttestation(demo.attestation, demo.keys))
            assertEquals(3, SetBinding.entries.size) // LEGACY_UNBOUND: attestations before 1.0.0
            // The signatures cover the version, the message count, every member.
            assertThrows<ProtocolException.Signature> {
                verifyAttestation(att.with("message_count" to 7).toString(), demo.keys)
            }
            assertTrue(
                runCatching { verifyAttestation(att.with("concordia_attestation" to "0.2.0").toString(), demo.keys) }
                    .exceptionOrNull() is ProtocolException,
                "a re-versioned attestation is refused",
            )
            val short = "[" + demo.messages.take(5).joinToString(",") + "]"
            assertThrows<ProtocolException.Binding> { verifyAttestation(demo.attestation, demo.keys, short) }
            assertThrows<ProtocolException.Schema> { verifyAttestation("{}", demo.keys) }
            assertEquals(listOf(SELLER, BUYER), att.getValue("parties").jsonArray.map { it.jsonObject.str("agent_id") })
        }
    }
}
