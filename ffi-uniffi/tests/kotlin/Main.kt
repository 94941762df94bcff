// The JVM test suite of the Kotlin bindings (tools/ci/kotlin.sh compiles and runs it):
//   java -Djna.library.path=<dir of libconcordia_uniffi.so> -Dconcordia.root=<repo> \
//        -cp <classes>:jna.jar:kotlin-stdlib.jar:kotlinx-serialization-*.jar \
//        io.github.concordia_rs.concordia.test.MainKt [FILTER]
// FILTER runs only the tests whose `Group.name` contains it. Exits 1 if any test fails.

package io.github.concordia_rs.concordia.test

import io.github.concordia_rs.concordia.AipException
import io.github.concordia_rs.concordia.ConsensusException
import io.github.concordia_rs.concordia.JsonException
import io.github.concordia_rs.concordia.ProtocolException
import io.github.concordia_rs.concordia.SignatureException
import kotlin.system.exitProcess

/** Runs after every other group: each variant of each error enum was seen as its own class. */
object ErrorCoverage : Group() {
    init {
        test("everyErrorVariantIsExercised") {
            for (enum in listOf(JsonException::class.java, SignatureException::class.java, ProtocolException::class.java,
                ConsensusException::class.java, AipException::class.java)) {
                val variants = enum.declaredClasses.filter { enum.isAssignableFrom(it) && it != enum }.toSet()
                assertTrue(variants.isNotEmpty(), "${name(enum)} has no variants")
                val missing = variants - Seen.classes
                assertTrue(missing.isEmpty(), "never raised: ${missing.map { name(it) }.sorted()}")
            }
        }
    }
}

fun main(args: Array<String>) {
    // Referencing each group runs its initializer, which registers its tests in this order.
    listOf(JsonTests, KeyTests, ProtocolTests, ConsensusTests, AipTests, LifecycleTests, ErrorCoverage)
    val failed = runAll(args.firstOrNull())
    exitProcess(if (failed == 0) 0 else 1)
}
