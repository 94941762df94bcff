// The Consensus venue primitives (XCTest: ConsensusTests).

package io.github.concordia_rs.concordia.test

import io.github.concordia_rs.concordia.ConsensusAction
import io.github.concordia_rs.concordia.ConsensusException
import io.github.concordia_rs.concordia.ConsensusOutcome
import io.github.concordia_rs.concordia.ConsensusRefusedEvent
import io.github.concordia_rs.concordia.InvitationChecks
import io.github.concordia_rs.concordia.canonicalize
import io.github.concordia_rs.concordia.consensusBuildCommand
import io.github.concordia_rs.concordia.consensusMarkdownDigest
import io.github.concordia_rs.concordia.consensusParseCommand
import io.github.concordia_rs.concordia.consensusParseInvitation
import io.github.concordia_rs.concordia.consensusRevisionDigest
import io.github.concordia_rs.concordia.consensusRoomOutcome
import io.github.concordia_rs.concordia.consensusValidateInvitation
import io.github.concordia_rs.concordia.consensusVerifyArtifact
import io.github.concordia_rs.concordia.consensusVerifyMarkdown
import io.github.concordia_rs.concordia.consensusVerifyRevision
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import java.io.File
import java.nio.file.Files
import java.time.Instant

object ConsensusTests : Group() {
    private const val ID = "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e6f"
    private const val SECRET = "6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA"
    private const val PROOF = "ep_private_proof_123"
    private const val EXCHANGE = "https://consensus.md/api/v1/agent/invitations/$ID/exchange"

    private fun email(invite: String = "https://consensus.md/i/$ID#secret=$SECRET", href: String = EXCHANGE): String {
        val block = obj(
            "schema" to "https://consensus.md/schemas/invitation-email/v1",
            "invitation_id" to ID,
            "invite_uri" to invite,
            "agent_exchange" to obj("method" to "POST", "href" to href),
            "agent_claim" to obj("email_proof" to PROOF, "meaning" to "A private proof."),
        )
        return "Hello agent,\r\n\r\n---BEGIN CONSENSUS INVITATION V1---\r\n$block\r\n" +
            "---END CONSENSUS INVITATION V1---\r\n\r\n-- Consensus\r\n"
    }

    init {
        test("digests") {
            val rev = """{"title": "Lease", "clauses": [{"n": 1, "text": "Rent 1200"}], "revision": 3}"""
            val d = consensusRevisionDigest(rev)
            assertEquals(sha256Hex("""{"clauses":[{"n":1,"text":"Rent 1200"}],"revision":3,"title":"Lease"}"""), d)
            assertEquals(sha256Hex(canonicalize(rev)), d)
            assertEquals(d, consensusVerifyRevision(rev, d))
            assertEquals(d, consensusVerifyRevision(rev, "sha256:$d"))
            // RFC 8785's number domain: a big integer is read as the nearest double.
            assertEquals(sha256Hex("[9007199254740992]"), consensusRevisionDigest("[9007199254740993]"))
            val md = "# Agreement\r\n\nRent: 1200\n"
            assertEquals(sha256Hex(md), consensusMarkdownDigest(md))
            assertEquals(sha256Hex(md), consensusVerifyMarkdown(md, sha256Hex(md)))
            assertThrows<ConsensusException.Digest>("revision") { consensusVerifyRevision(rev, "0".repeat(64)) }
            assertThrows<ConsensusException.Digest>("markdown") { consensusVerifyMarkdown("$md ", sha256Hex(md)) }
            assertThrows<ConsensusException.Digest> { consensusVerifyRevision(rev, d.uppercase()) }
            assertThrows<ConsensusException.Input> { consensusVerifyMarkdown(md, "xyz") }
            assertThrows<ConsensusException.Input>("malformed JSON") { consensusRevisionDigest("""{"a":1,"a":2}""") }
        }

        test("invitation") {
            val s = consensusParseInvitation(email())
            assertTrue(s.valid)
            assertEquals(ID, s.invitationId)
            assertEquals(EXCHANGE, s.exchangeHref)
            assertEquals(InvitationChecks(https = true, origin = true, noQuery = true, uuids = true, secret = true), s.checks)
            // Secrets never cross the boundary.
            assertFalse(s.toString().contains(SECRET) || s.toString().contains(PROOF), s.toString())
            assertEquals(s, consensusValidateInvitation(email(), "https://consensus.md"))
            // Failed checks: reported by parse, raised by validate.
            val http = email(invite = "http://consensus.md/i/$ID#secret=$SECRET")
            assertFalse(consensusParseInvitation(http).checks.https)
            assertThrows<ConsensusException.Binding>("https") { consensusValidateInvitation(http) }
            assertThrows<ConsensusException.Binding>("origin") { consensusValidateInvitation(email(), "https://example.org") }
            assertThrows<ConsensusException.Privacy>("query") { consensusValidateInvitation(email(href = "$EXCHANGE?x=1")) }
            val noSecret = email(invite = "https://consensus.md/i/$ID#secret=a")
            assertFalse(consensusParseInvitation(noSecret).valid)
            assertThrows<ConsensusException.Input>("secret") { consensusValidateInvitation(noSecret) }
            assertThrows<ConsensusException.Schema>("markers") { consensusParseInvitation("no invitation here") }
            assertThrows<ConsensusException.Limit> { consensusParseInvitation("x".repeat(256 * 1024 + 1)) }
            assertThrows<ConsensusException.Input>("origin") { consensusParseInvitation(email(), "ftp://consensus.md") }
            // Issue 32 class 12: an exchange URL with a query or fragment crosses redacted.
            for ((tail, shown) in listOf(
                "?secret=$SECRET" to "?<redacted>",
                "#secret=$SECRET" to "#<redacted>",
                "?a=1#secret=$SECRET" to "?<redacted>#<redacted>",
            )) {
                val r = consensusParseInvitation(email(href = EXCHANGE + tail))
                assertFalse(r.checks.noQuery || r.valid)
                assertEquals(EXCHANGE + shown, r.exchangeHref)
                assertFalse(r.toString().contains(SECRET), r.toString())
            }
        }

        test("commands") {
            val d = sha256Hex("# Agreement\n")
            val agree = consensusBuildCommand(ConsensusAction.AGREE, "", 1uL, d)
            assertEquals(ConsensusAction.AGREE, agree.action)
            assertEquals(1uL, agree.revision)
            assertEquals("""{"action":"agree","body":"","digest":"$d","revision":1}""", agree.wireBody)
            assertTrue(agree.idempotencyKey.startsWith("cns1:"))
            assertEquals(48, agree.idempotencyKey.length)
            // The key is identical for the sha256:-prefixed digest and stable across calls.
            assertEquals(agree, consensusBuildCommand(ConsensusAction.AGREE, "", 1uL, "sha256:$d"))
            assertEquals(agree, consensusParseCommand(agree.wireBody))
            val comment = consensusBuildCommand(ConsensusAction.COMMENT, "Looks good, é", 2uL, d)
            assertNotEquals(agree.idempotencyKey, comment.idempotencyKey)
            assertEquals(comment, consensusParseCommand(comment.wireBody))
            assertEquals("""{"action":"comment","body":"Looks good, é","digest":"$d","revision":2}""", comment.wireBody)
            for (action in listOf(ConsensusAction.QUESTION, ConsensusAction.CHANGE_REQUEST)) {
                assertEquals(action, consensusBuildCommand(action, "why?", 1uL, d).action)
            }
            for (action in listOf(ConsensusAction.DISAGREE, ConsensusAction.ABSTAIN)) {
                assertEquals(action, consensusBuildCommand(action, "", 1uL, d).action)
            }
            assertThrows<ConsensusException.Schema>("empty body") { consensusBuildCommand(ConsensusAction.AGREE, "yes", 1uL, d) }
            assertThrows<ConsensusException.Schema>("4000") { consensusBuildCommand(ConsensusAction.COMMENT, "x".repeat(4001), 1uL, d) }
            assertThrows<ConsensusException.Schema>("revision") { consensusBuildCommand(ConsensusAction.COMMENT, "x", 0uL, d) }
            assertThrows<ConsensusException.Input> { consensusBuildCommand(ConsensusAction.COMMENT, "x", 1uL, "abc") }
            assertThrows<ConsensusException.Schema>("unknown member") {
                consensusParseCommand("""{"action":"agree","body":"","digest":"$d","revision":1,"x":1}""")
            }
            assertThrows<ConsensusException.Limit> { consensusParseCommand(" ".repeat(30000)) }
        }

        test("artifact") {
            val body = "# CONSENSUS\n\nReached on revision 3.\n".toByteArray()
            val digest = sha256(body)
            val field = "sha-256=:" + b64(digest) + ":"
            assertEquals(digest.hex(), consensusVerifyArtifact(body, field, digest.hex(), ConsensusOutcome.REACHED))
            assertEquals(digest.hex(), consensusVerifyArtifact(body, "md5=:AAAA:, $field", digest.hex(), ConsensusOutcome.REACHED))
            for (outcome in ConsensusOutcome.entries.filter { it != ConsensusOutcome.REACHED }) {
                assertThrows<ConsensusException.Transition> { consensusVerifyArtifact(body, field, digest.hex(), outcome) }
            }
            assertThrows<ConsensusException.Digest>("content-digest") {
                consensusVerifyArtifact(body + " ".toByteArray(), field, digest.hex(), ConsensusOutcome.REACHED)
            }
            assertThrows<ConsensusException.Schema> { consensusVerifyArtifact(body, "md5=:AAAA:", digest.hex(), ConsensusOutcome.REACHED) }
            assertThrows<ConsensusException.Input> {
                consensusVerifyArtifact(body, field, digest.hex().uppercase(), ConsensusOutcome.REACHED)
            }
        }
        test("roomOutcomeMatchesCli") {
            // examples/consensus/room.json and two variants, each against `concordia consensus outcome`.
            val room = json(File(root, "examples/consensus/room.json").readText())
            val events = room.getValue("events").jsonArray
            val stale = room.with("events" to JsonArray(
                events.mapIndexed { i, e -> if (i == 3) e.jsonObject.with("digest" to "0".repeat(64)) else e } + listOf(
                    obj("participant" to "ghost", "action" to "agree", "body" to "", "revision" to 1, "digest" to room.str("digest"),
                        "at" to "2026-09-06T12:08:00Z"),
                    obj("participant" to "dana", "action" to "agree"),
                ),
            ))
            val cases = listOf(
                room to "2026-09-07T00:00:00Z",
                room.with("events" to JsonArray(events.take(2))) to "2026-09-11T00:00:00Z",
                stale to "2026-09-07T00:00:00Z",
            )
            val dir = Files.createTempDirectory("concordia-kotlin").toFile()
            try {
                val outcomes = cases.map { (r, now) ->
                    File(dir, "room.json").writeText(r.toString())
                    val p = ProcessBuilder(cli, "consensus", "outcome", "$dir/room.json", "--now", now).start()
                    val stdout = p.inputStream.readBytes().toString(Charsets.UTF_8)
                    val stderr = p.errorStream.readBytes().toString(Charsets.UTF_8)
                    assertEquals(0, p.waitFor(), stderr)
                    val got = consensusRoomOutcome(r.toString(), Instant.parse(now))
                    assertEquals(stdout.trim(), got.outcome.name.lowercase())
                    assertEquals(stderr.lines().filter { it.startsWith("event ") }, got.refused.map { "event ${it.index}: ${it.message}" })
                    got
                }
                assertEquals(listOf(ConsensusOutcome.REACHED, ConsensusOutcome.EXPIRED, ConsensusOutcome.PENDING), outcomes.map { it.outcome })
                val last = outcomes.last()
                assertEquals(ConsensusRefusedEvent(3uL, 409.toUShort(), "stale_digest", "409 stale_digest"), last.refused[0])
                assertEquals(3uL, last.accepted)
            } finally {
                dir.deleteRecursively()
            }
            assertThrows<ConsensusException.Schema> { consensusRoomOutcome(room.with("events" to obj()).toString(), START) }
            assertThrows<ConsensusException.Input> { consensusRoomOutcome("[", START) }
        }
    }
}
