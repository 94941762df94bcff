// What only the JVM bindings have: explicit `close()` of the Rust objects and sharing them
// across JVM threads (the Rust objects document themselves as immutable or locked).

package io.github.concordia_rs.concordia.test

import io.github.concordia_rs.concordia.AipKeyPair
import io.github.concordia_rs.concordia.AipReplayCapacity
import io.github.concordia_rs.concordia.AipReplayWindow
import io.github.concordia_rs.concordia.AipVerdict
import io.github.concordia_rs.concordia.KeyPair
import io.github.concordia_rs.concordia.ProtocolException
import io.github.concordia_rs.concordia.Role
import io.github.concordia_rs.concordia.Session
import io.github.concordia_rs.concordia.TranscriptVerifier
import io.github.concordia_rs.concordia.aipDidKey
import java.time.Instant
import java.util.concurrent.Callable
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors

/** Runs `task(i)` for i in 0 until n on n threads released together; returns the results in order. */
private fun <T> concurrently(n: Int, task: (Int) -> T): List<T> {
    val pool = Executors.newFixedThreadPool(n)
    try {
        val start = CountDownLatch(1)
        val futures = (0 until n).map { i -> pool.submit(Callable { start.await(); task(i) }) }
        start.countDown()
        return futures.map { it.get() }
    } finally {
        pool.shutdown()
    }
}

object LifecycleTests : Group() {
    private val now: Instant = Instant.parse("2026-05-10T14:25:00Z")

    init {
        test("methodsAfterCloseThrow") {
            val kp = KeyPair.fromSeed(RFC8032_SEED)
            assertFalse(kp.uniffiIsDestroyed)
            kp.use { assertBytes(RFC8032_SIG, it.sign(ByteArray(0))) }
            assertTrue(kp.uniffiIsDestroyed)
            assertThrows<IllegalStateException>("already been destroyed") { kp.sign(ByteArray(0)) }
            kp.close() // a second close does nothing
            val v = TranscriptVerifier(Demo.instance.keys)
            v.close()
            assertThrows<IllegalStateException>("already been destroyed") { v.push(Demo.instance.messages[0]) }
        }

        test("closedObjectAsArgumentThrows") {
            // An object passed as an argument is lowered through uniffiCloneHandle(), which the
            // generated code left unguarded (a use after free in Rust); the committed bindings
            // guard it (tools/ci/uniffi_kotlin_guard.py), so this is an exception, not UB.
            val kp = KeyPair.fromSeed(RFC8032_SEED)
            val did = aipDidKey(kp)
            kp.close()
            assertThrows<IllegalStateException>("already been destroyed") { aipDidKey(kp) }
            val again = KeyPair.fromSeed(RFC8032_SEED)
            assertEquals(did, aipDidKey(again)) // the library is unharmed
            again.close()
        }

        test("returnedObjectsOutliveTheirSource") {
            // signingKey() hands out its own reference: closing the AIP key pair leaves it usable.
            val aip = AipKeyPair.fromSeeds(derive("aip-ed25519-alice"), derive("aip-x25519-alice"))
            val signer = aip.signingKey()
            aip.close()
            assertBytes(jdkSign(derive("aip-ed25519-alice"), byteArrayOf(1, 2, 3)), signer.sign(byteArrayOf(1, 2, 3)))
            signer.close()
        }

        test("replayWindowSharedByThreads") {
            // 8 threads, 128 ids each, one window of 1024 slots: every id fresh, the window full.
            AipReplayWindow(AipReplayCapacity.SMALL).use { w ->
                val verdicts = concurrently(8) { t ->
                    (0 until 128).map { i -> w.check("did:aip:aigentix.org:alice", "00000000-0000-4000-8000-%06x%06x".format(t, i), "2026-05-10T14:25:00Z", now) }
                }
                assertEquals(List(8) { List(128) { AipVerdict.FRESH } }, verdicts)
                assertEquals(1024uL, w.len())
                // One id delivered on 8 threads at once: exactly one delivery is fresh.
                val w2 = AipReplayWindow(AipReplayCapacity.SMALL)
                val id = "11111111-1111-4111-8111-111111111111"
                val once = concurrently(8) { w2.check("did:aip:aigentix.org:alice", id, "2026-05-10T14:25:00Z", now) }
                assertEquals(1, once.count { it == AipVerdict.FRESH })
                assertEquals(7, once.count { it == AipVerdict.DUPLICATE })
                w2.close()
            }
        }

        test("sessionSharedByThreads") {
            // 8 threads register one party each: all 8 are there, and a ninth is refused.
            Session("ses_threads", START).use { s ->
                concurrently(8) { s.addParty("agent-$it", Role.WITNESS) }
                assertEquals((0 until 8).map { "agent-$it" }.toSet(), s.parties().map { it.agentId }.toSet())
                assertThrows<ProtocolException.Limit> { s.addParty("agent-8", Role.WITNESS) }
            }
        }

        test("keyPairSharedByThreads") {
            // One immutable key pair signing on 8 threads gives the JDK's signatures.
            KeyPair.fromSeed(derive("seller")).use { kp ->
                val sigs = concurrently(8) { kp.sign("message $it".toByteArray()).hex() }
                assertEquals((0 until 8).map { jdkSign(derive("seller"), "message $it".toByteArray()).hex() }, sigs)
            }
        }
    }
}
