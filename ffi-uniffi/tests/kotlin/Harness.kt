// A small test runner for the JVM suite (no JUnit): named tests grouped as the XCTest
// classes are, assertions that count themselves, and a summary line. `main` (Main.kt) exits
// 1 when any test fails, so tools/ci/kotlin.sh and CI fail with it.

package io.github.concordia_rs.concordia.test

import kotlin.reflect.KClass

/** Thrown by a failed assertion; the runner reports its message and the test's line. */
class AssertionFailed(message: String) : AssertionError(message)

/** One named test of a group. */
class TestCase(val group: String, val name: String, val body: () -> Unit)

/** Every test registered by the groups, in the order they declare them. */
object Registry {
    val tests = mutableListOf<TestCase>()
    var assertions = 0
        private set

    fun counted() {
        assertions += 1
    }
}

/** A group of tests (one XCTest class); `test` registers one. */
abstract class Group {
    private val group: String = this::class.java.simpleName

    protected fun test(name: String, body: () -> Unit) {
        Registry.tests += TestCase(group, name, body)
    }
}

fun fail(message: String): Nothing = throw AssertionFailed(message)

fun assertTrue(condition: Boolean, message: String = "expected true") {
    Registry.counted()
    if (!condition) fail(message)
}

fun assertFalse(condition: Boolean, message: String = "expected false") = assertTrue(!condition, message)

fun <T> assertEquals(expected: T, actual: T, message: String = "") {
    Registry.counted()
    if (expected != actual) fail("expected <$expected>, got <$actual>${if (message.isEmpty()) "" else ": $message"}")
}

fun <T> assertNotEquals(unexpected: T, actual: T, message: String = "") {
    Registry.counted()
    if (unexpected == actual) fail("expected a value other than <$actual>${if (message.isEmpty()) "" else ": $message"}")
}

/** Byte arrays compare by content (a Kotlin `==` on arrays compares references). */
fun assertBytes(expected: ByteArray, actual: ByteArray, message: String = "") {
    Registry.counted()
    if (!expected.contentEquals(actual)) fail("expected bytes ${expected.hex()}, got ${actual.hex()} $message")
}

fun assertClose(expected: Double, actual: Double, tolerance: Double = 1e-12) {
    Registry.counted()
    if (Math.abs(expected - actual) > tolerance) fail("expected $expected ± $tolerance, got $actual")
}

/** Every exception class that an `assertThrows` saw, for the variant coverage test. */
object Seen {
    val classes = mutableSetOf<Class<*>>()
}

/**
 * Asserts that `body` throws exactly `E` (not a sibling variant or a parent class) and, if
 * `matching` is given, that its message contains that text. Returns the exception.
 */
fun <E : Throwable> assertThrows(type: KClass<E>, matching: String? = null, body: () -> Unit): E {
    Registry.counted()
    try {
        body()
    } catch (e: Throwable) {
        if (e.javaClass != type.java) {
            fail("expected ${name(type.java)}, got ${name(e.javaClass)}: ${e.message}")
        }
        if (matching != null && e.message?.contains(matching) != true) {
            fail("expected ${name(type.java)} with a message containing \"$matching\", got \"${e.message}\"")
        }
        Seen.classes += e.javaClass
        @Suppress("UNCHECKED_CAST")
        return e as E
    }
    fail("expected ${name(type.java)}, nothing was thrown")
}

inline fun <reified E : Throwable> assertThrows(matching: String? = null, noinline body: () -> Unit): E =
    assertThrows(E::class, matching, body)

/** `ProtocolException.Binding` rather than the JVM's `ProtocolException$Binding`. */
fun name(c: Class<*>): String = c.name.substringAfterLast('.').replace('$', '.')

/** Runs every registered test (or those whose `Group.name` contains `filter`); returns the failures. */
fun runAll(filter: String?): Int {
    var passed = 0
    var failed = 0
    for (t in Registry.tests) {
        val id = "${t.group}.${t.name}"
        if (filter != null && !id.contains(filter)) continue
        try {
            t.body()
            passed += 1
            println("[PASS] $id")
        } catch (e: Throwable) {
            failed += 1
            val at = e.stackTrace.firstOrNull { it.className.startsWith("io.github.concordia_rs.concordia.test.") &&
                !it.fileName.orEmpty().startsWith("Harness") }
            println("[FAIL] $id: ${if (e is AssertionFailed) "" else name(e.javaClass) + ": "}${e.message}" +
                (at?.let { " (${it.fileName}:${it.lineNumber})" } ?: ""))
        }
    }
    println("[SUMMARY] tests=${passed + failed} passed=$passed failed=$failed assertions=${Registry.assertions}")
    return failed
}
