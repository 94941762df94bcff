/*
 * C tests of libconcordia: every export, its success path and its error paths (NULL
 * arguments, too-small buffers with size-and-retry, malformed JSON with offsets, bad
 * signatures, protocol rejections), plus a negotiation driven end to end through the
 * session, envelope, transcript verifier and attestation objects.
 *
 * Built with gcc -std=c99 -Wall -Wextra -Werror -pedantic; run under valgrind and again
 * with -fsanitize=address,undefined (tools/ci/ffi-c.sh). Prints "N passed, M failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "concordia.h"

#include "harness.h"


/* ---- version, result codes, last error ------------------------------------------ */

static void test_version_and_codes(void) {
    uint8_t buf[128];
    size_t n = 99;
    char expect[32];

    CHECK(concordia_version_number() == CONCORDIA_VERSION_NUMBER);
    CHECK(CONCORDIA_VERSION_NUMBER == CONCORDIA_VERSION_MAJOR * 10000 + CONCORDIA_VERSION_MINOR * 100 + CONCORDIA_VERSION_PATCH);
    sprintf(expect, "%d.%d.%d", CONCORDIA_VERSION_MAJOR, CONCORDIA_VERSION_MINOR, CONCORDIA_VERSION_PATCH);
    EXPECT(concordia_version(buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(eq(buf, n, expect));
    /* size query, then too small, then NULLs */
    EXPECT(concordia_version(NULL, 0, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == strlen(expect));
    EXPECT(concordia_version(buf, 2, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == strlen(expect));
    EXPECT(concordia_version(buf, sizeof buf, NULL), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_version(NULL, 5, &n), CONCORDIA_NULL_ARGUMENT);

    EXPECT(concordia_result_message(CONCORDIA_BUFFER_TOO_SMALL, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(n > 10 && memcmp(buf, "output buffer too small", 23) == 0);
    EXPECT(concordia_result_message(CONCORDIA_OK, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(eq(buf, n, "ok"));
    EXPECT(concordia_result_message(CONCORDIA_PANIC, buf, 3, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n > 3);
    EXPECT(concordia_result_message(12345, buf, sizeof buf, &n), CONCORDIA_INVALID_ARGUMENT);
    CHECK(n == 0);
    EXPECT(concordia_result_message(CONCORDIA_OK, buf, sizeof buf, NULL), CONCORDIA_NULL_ARGUMENT);

    /* every code has a message and a class */
    {
        static const uint32_t codes[] = {
            CONCORDIA_OK, CONCORDIA_NULL_ARGUMENT, CONCORDIA_BUFFER_TOO_SMALL, CONCORDIA_INVALID_ARGUMENT,
            CONCORDIA_UNKNOWN_PROFILE, CONCORDIA_INVALID_STATE, CONCORDIA_NOT_AVAILABLE, CONCORDIA_IO,
            CONCORDIA_JSON_UNEXPECTED_END, CONCORDIA_JSON_UNEXPECTED_BYTE, CONCORDIA_JSON_TRAILING_BYTES,
            CONCORDIA_JSON_INVALID_UTF8, CONCORDIA_JSON_CONTROL_CHARACTER, CONCORDIA_JSON_INVALID_ESCAPE,
            CONCORDIA_JSON_LONE_SURROGATE, CONCORDIA_JSON_INVALID_NUMBER, CONCORDIA_JSON_NUMBER_OUT_OF_RANGE,
            CONCORDIA_JSON_UNSAFE_INTEGER, CONCORDIA_JSON_NEGATIVE_ZERO, CONCORDIA_JSON_DUPLICATE_KEY,
            CONCORDIA_JSON_BYTE_ORDER_MARK, CONCORDIA_JSON_OTHER, CONCORDIA_SIGNATURE, CONCORDIA_UNKNOWN_KEY,
            CONCORDIA_ENCODING, CONCORDIA_SCHEMA, CONCORDIA_DIGEST, CONCORDIA_BINDING, CONCORDIA_TEMPORAL,
            CONCORDIA_PRIVACY, CONCORDIA_TRANSITION, CONCORDIA_MAX_ROUNDS, CONCORDIA_SHAPE, CONCORDIA_AIP_REPLAY,
            CONCORDIA_LIMIT_DEPTH,
            CONCORDIA_LIMIT_NODES, CONCORDIA_LIMIT_SIZE, CONCORDIA_LIMIT_CAPACITY, CONCORDIA_LIMIT_STEPS,
            CONCORDIA_LIMIT_MEMORY, CONCORDIA_LIMIT_OTHER,
            CONCORDIA_PANIC, CONCORDIA_INTERNAL, CONCORDIA_RANDOMNESS_UNAVAILABLE};
        size_t i;
        int all = 1;
        for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
            if (concordia_result_message(codes[i], buf, sizeof buf, &n) != CONCORDIA_OK || n == 0) all = 0;
            if (concordia_result_class(codes[i], buf, sizeof buf, &n) != CONCORDIA_OK || n == 0) all = 0;
        }
        CHECK(all);
    }
    EXPECT(concordia_result_class(CONCORDIA_BINDING, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(eq(buf, n, "binding"));
    EXPECT(concordia_result_class(CONCORDIA_MAX_ROUNDS, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(eq(buf, n, "transition"));
    EXPECT(concordia_result_class(CONCORDIA_SHAPE, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(eq(buf, n, "schema"));
    EXPECT(concordia_result_class(CONCORDIA_AIP_REPLAY, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(eq(buf, n, "replay"));
    EXPECT(concordia_result_class(CONCORDIA_UNKNOWN_KEY, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(eq(buf, n, "signature"));
    EXPECT(concordia_result_class(CONCORDIA_JSON_DUPLICATE_KEY, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(eq(buf, n, "input"));
    EXPECT(concordia_result_class(CONCORDIA_LIMIT_DEPTH, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(eq(buf, n, "limit"));
    EXPECT(concordia_result_class(CONCORDIA_PANIC, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(eq(buf, n, "internal"));
    EXPECT(concordia_result_class(CONCORDIA_OK, buf, 1, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == 2);
    EXPECT(concordia_result_class(7, buf, sizeof buf, &n), CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_result_class(CONCORDIA_OK, buf, sizeof buf, NULL), CONCORDIA_NULL_ARGUMENT);

    EXPECT(concordia_last_error_offset(NULL), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_last_error_message(buf, sizeof buf, NULL), CONCORDIA_NULL_ARGUMENT);
}

/* ---- canonicalize and hash, malformed JSON ----------------------------------------- */

struct bad_json {
    const char *text;
    size_t len;
    uint32_t code;
    size_t offset;
};

static void test_canonicalize_and_hash(void) {
    uint8_t out[256];
    size_t n = 0, off = 0;
    const char *in = "{\"b\": 1.50, \"a\": [true, \"\\u00e9\"], \"n\": 1e21}";
    const char *canon = "{\"a\":[true,\"\xc3\xa9\"],\"b\":1.5,\"n\":1e+21}";
    size_t i;
    static const struct bad_json bad[] = {
        {"", 0, CONCORDIA_JSON_UNEXPECTED_END, 0},
        {"{\"a\":}", 6, CONCORDIA_JSON_UNEXPECTED_BYTE, 5},
        {"{} x", 4, CONCORDIA_JSON_TRAILING_BYTES, 3},
        {"\"\xff\"", 3, CONCORDIA_JSON_INVALID_UTF8, 1},
        {"\"a\tb\"", 5, CONCORDIA_JSON_CONTROL_CHARACTER, 2},
        {"\"\\x\"", 4, CONCORDIA_JSON_INVALID_ESCAPE, 1},
        {"\"\\ud800\"", 8, CONCORDIA_JSON_LONE_SURROGATE, 1},
        {"01", 2, CONCORDIA_JSON_INVALID_NUMBER, 1},
        {"1e999", 5, CONCORDIA_JSON_NUMBER_OUT_OF_RANGE, 0},
        {"9007199254740993", 16, CONCORDIA_JSON_UNSAFE_INTEGER, 0},
        {"-0.0", 4, CONCORDIA_JSON_NEGATIVE_ZERO, 0},
        {"{\"a\": 1, \"a\": 2}", 16, CONCORDIA_JSON_DUPLICATE_KEY, 9},
        {"\xef\xbb\xbf{}", 5, CONCORDIA_JSON_BYTE_ORDER_MARK, 0},
    };

    EXPECT(concordia_canonicalize(U(in), strlen(in), out, sizeof out, &n), CONCORDIA_OK);
    CHECK(eq(out, n, canon));
    /* the last error is cleared by a success */
    EXPECT(concordia_last_error_offset(&off), CONCORDIA_NOT_AVAILABLE);
    EXPECT(concordia_last_error_message(out + 200, 50, &n), CONCORDIA_NOT_AVAILABLE);

    /* size query and retry */
    EXPECT(concordia_canonicalize(U(in), strlen(in), NULL, 0, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == strlen(canon));
    {
        uint8_t *exact = malloc(n);
        size_t m = 0;
        EXPECT(concordia_canonicalize(U(in), strlen(in), exact, n, &m), CONCORDIA_OK);
        CHECK(m == n && memcmp(exact, canon, n) == 0);
        EXPECT(concordia_canonicalize(U(in), strlen(in), exact, n - 1, &m), CONCORDIA_BUFFER_TOO_SMALL);
        CHECK(m == n);
        free(exact);
    }
    EXPECT(concordia_canonicalize(NULL, 3, out, sizeof out, &n), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_canonicalize(U(in), strlen(in), NULL, 10, &n), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_canonicalize(U(in), strlen(in), out, sizeof out, NULL), CONCORDIA_NULL_ARGUMENT);
    /* NULL input with length 0 is the empty text: malformed */
    EXPECT(concordia_canonicalize(NULL, 0, out, sizeof out, &n), CONCORDIA_JSON_UNEXPECTED_END);

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        concordia_result r = concordia_canonicalize(U(bad[i].text), bad[i].len, out, sizeof out, &n);
        if (r != bad[i].code) fprintf(stderr, "  case %u: got %u\n", (unsigned)i, (unsigned)r);
        CHECK(r == bad[i].code);
        CHECK(n == 0);
        EXPECT(concordia_last_error_offset(&off), CONCORDIA_OK);
        if (off != bad[i].offset) fprintf(stderr, "  case %u: offset %u\n", (unsigned)i, (unsigned)off);
        CHECK(off == bad[i].offset);
    }
    {
        /* message of the last error carries the offset */
        concordia_canonicalize(U("{\"a\": 1, \"a\": 2}"), 16, out, sizeof out, &n);
        EXPECT(concordia_last_error_message(out, sizeof out, &n), CONCORDIA_OK);
        CHECK(eq(out, n, "malformed JSON at byte 9: duplicate member name"));
        EXPECT(concordia_last_error_message(out, 4, &n), CONCORDIA_BUFFER_TOO_SMALL);
        CHECK(n == strlen("malformed JSON at byte 9: duplicate member name"));
    }
    {
        /* depth limit: 129 nested arrays */
        char deep[260];
        memset(deep, '[', 129);
        memset(deep + 129, ']', 129);
        EXPECT(concordia_canonicalize(U(deep), 258, out, sizeof out, &n), CONCORDIA_LIMIT_DEPTH);
        EXPECT(concordia_last_error_offset(&off), CONCORDIA_OK);
        CHECK(off == 128);
        EXPECT(concordia_canonicalize(U(deep + 1), 256, out, sizeof out, &n), CONCORDIA_OK);
    }

    EXPECT(concordia_hash(U(in), strlen(in), out, sizeof out, &n), CONCORDIA_OK);
    CHECK(n == CONCORDIA_DIGEST_TEXT_LEN && memcmp(out, "sha256:", 7) == 0);
    {
        /* same hash for the canonical text */
        uint8_t out2[80];
        size_t n2 = 0;
        EXPECT(concordia_hash(U(canon), strlen(canon), out2, sizeof out2, &n2), CONCORDIA_OK);
        CHECK(n2 == n && memcmp(out, out2, n) == 0);
    }
    EXPECT(concordia_hash(U("{}"), 2, out, sizeof out, &n), CONCORDIA_OK);
    CHECK(eq(out, n, "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"));
    EXPECT(concordia_hash(U("{}"), 2, out, 70, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == 71);
    EXPECT(concordia_hash(U("{"), 1, out, sizeof out, &n), CONCORDIA_JSON_UNEXPECTED_END);
    EXPECT(concordia_hash(NULL, 1, out, sizeof out, &n), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_hash(U("{}"), 2, out, sizeof out, NULL), CONCORDIA_NULL_ARGUMENT);
}

/* ---- keys, sign, verify ----------------------------------------------------------- */

static const uint8_t SEED7[32] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
                                  7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7};
static const uint8_t SEED9[32] = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
                                  9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};

static void test_keys(void) {
    concordia_keypair *kp = NULL, *gen = NULL, *again = NULL;
    uint8_t pk[64], b64[64], seed[64], back[64];
    size_t n = 0, m = 0;

    EXPECT(concordia_keypair_from_seed(SEED7, 32, &kp), CONCORDIA_OK);
    CHECK(kp != NULL);
    EXPECT(concordia_keypair_public_key(kp, pk, sizeof pk, &n), CONCORDIA_OK);
    CHECK(n == CONCORDIA_PUBLIC_KEY_LEN);
    EXPECT(concordia_keypair_public_key(kp, pk, 31, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == 32);
    EXPECT(concordia_keypair_public_key(kp, pk, sizeof pk, &n), CONCORDIA_OK);
    EXPECT(concordia_keypair_public_key_b64url(kp, b64, sizeof b64, &m), CONCORDIA_OK);
    CHECK(m == CONCORDIA_PUBLIC_KEY_B64URL_LEN);
    EXPECT(concordia_keypair_public_key_b64url(kp, b64, 10, &m), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(m == 44);
    EXPECT(concordia_keypair_public_key_b64url(kp, b64, sizeof b64, &m), CONCORDIA_OK);
    {
        /* base64url text and the 32 bytes agree, both ways */
        concordia_str t;
        size_t k = 0;
        t.ptr = b64;
        t.len = m;
        EXPECT(concordia_public_key_from_b64(t, back, sizeof back, &k), CONCORDIA_OK);
        CHECK(k == 32 && memcmp(back, pk, 32) == 0);
        t.len = m - 1; /* unpadded form is accepted too */
        EXPECT(concordia_public_key_from_b64(t, back, sizeof back, &k), CONCORDIA_OK);
        EXPECT(concordia_public_key_from_b64(S("not base64!"), back, sizeof back, &k), CONCORDIA_ENCODING);
        EXPECT(concordia_public_key_from_b64(S("AAAA"), back, sizeof back, &k), CONCORDIA_ENCODING);
        EXPECT(concordia_public_key_from_b64(t, back, 8, &k), CONCORDIA_BUFFER_TOO_SMALL);
        CHECK(k == 32);
        EXPECT(concordia_public_key_from_b64(t, back, sizeof back, NULL), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_public_key_to_b64url(pk, 32, back, sizeof back, &k), CONCORDIA_OK);
        CHECK(k == m && memcmp(back, b64, m) == 0);
        EXPECT(concordia_public_key_to_b64url(pk, 31, back, sizeof back, &k), CONCORDIA_INVALID_ARGUMENT);
        EXPECT(concordia_public_key_to_b64url(NULL, 32, back, sizeof back, &k), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_public_key_to_b64url(pk, 32, back, 43, &k), CONCORDIA_BUFFER_TOO_SMALL);
        CHECK(k == 44);
        {
            concordia_str bad_utf8;
            bad_utf8.ptr = U("\xff\xfe");
            bad_utf8.len = 2;
            EXPECT(concordia_public_key_from_b64(bad_utf8, back, sizeof back, &k), CONCORDIA_INVALID_ARGUMENT);
        }
    }
    EXPECT(concordia_keypair_seed(kp, seed, sizeof seed, &n), CONCORDIA_OK);
    CHECK(n == 32 && memcmp(seed, SEED7, 32) == 0);
    EXPECT(concordia_keypair_seed(kp, seed, 1, &n), CONCORDIA_BUFFER_TOO_SMALL);
    EXPECT(concordia_keypair_seed(NULL, seed, sizeof seed, &n), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_keypair_public_key(NULL, pk, sizeof pk, &n), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_keypair_public_key_b64url(NULL, b64, sizeof b64, &n), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_keypair_public_key(kp, pk, sizeof pk, NULL), CONCORDIA_NULL_ARGUMENT);

    EXPECT(concordia_keypair_from_seed(SEED7, 31, &again), CONCORDIA_INVALID_ARGUMENT);
    CHECK(again == NULL);
    EXPECT(concordia_keypair_from_seed(NULL, 32, &again), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_keypair_from_seed(SEED7, 32, NULL), CONCORDIA_NULL_ARGUMENT);

    /* generated keys differ, and round-trip through their seed */
    EXPECT(concordia_keypair_generate(&gen), CONCORDIA_OK);
    CHECK(gen != NULL);
    EXPECT(concordia_keypair_generate(NULL), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_keypair_seed(gen, seed, sizeof seed, &n), CONCORDIA_OK);
    EXPECT(concordia_keypair_from_seed(seed, 32, &again), CONCORDIA_OK);
    {
        uint8_t p1[32], p2[32];
        size_t a = 0, b = 0;
        concordia_keypair_public_key(gen, p1, 32, &a);
        concordia_keypair_public_key(again, p2, 32, &b);
        CHECK(a == 32 && b == 32 && memcmp(p1, p2, 32) == 0);
        CHECK(memcmp(p1, pk, 32) != 0);
    }
    concordia_keypair_free(gen);
    concordia_keypair_free(again);
    concordia_keypair_free(kp);
    concordia_keypair_free(NULL);
}

static void test_sign_verify(void) {
    concordia_keypair *kp = NULL, *other = NULL;
    uint8_t pk[32], pk_other[32], out[512];
    size_t n = 0, k = 0;
    const char *obj = "{\"type\":\"demo\",\"value\":42,\"signature\":\"old\"}";

    concordia_keypair_from_seed(SEED7, 32, &kp);
    concordia_keypair_from_seed(SEED9, 32, &other);
    concordia_keypair_public_key(kp, pk, 32, &k);
    concordia_keypair_public_key(other, pk_other, 32, &k);

    /* size query, then exact buffer */
    EXPECT(concordia_sign_object(kp, U(obj), strlen(obj), NULL, 0, &n), CONCORDIA_BUFFER_TOO_SMALL);
    {
        size_t need = n, got = 0;
        uint8_t *buf = malloc(need);
        EXPECT(concordia_sign_object(kp, U(obj), strlen(obj), buf, need, &got), CONCORDIA_OK);
        CHECK(got == need);
        EXPECT(concordia_sign_object(kp, U(obj), strlen(obj), buf, 20, &got), CONCORDIA_BUFFER_TOO_SMALL);
        CHECK(got == need);
        free(buf);
    }
    EXPECT(concordia_sign_object(kp, U(obj), strlen(obj), out, sizeof out, &n), CONCORDIA_OK);
    CHECK(n > 100 && memcmp(out, "{\"signature\":\"", 14) == 0);
    EXPECT(concordia_verify_object(out, n, pk, 32), CONCORDIA_OK);
    EXPECT(concordia_verify_object(out, n, pk_other, 32), CONCORDIA_SIGNATURE);
    {
        /* tamper with the value: 42 -> 43 */
        uint8_t *v = (uint8_t *)strstr((char *)out, "42");
        CHECK(v != NULL);
        if (v) {
            *(v + 1) = '3';
            EXPECT(concordia_verify_object(out, n, pk, 32), CONCORDIA_SIGNATURE);
            *(v + 1) = '2';
        }
    }
    EXPECT(concordia_verify_object(U(obj), strlen(obj), pk, 32), CONCORDIA_ENCODING);
    EXPECT(concordia_verify_object(U("{\"a\":1}"), 7, pk, 32), CONCORDIA_SCHEMA);
    EXPECT(concordia_verify_object(U("[1]"), 3, pk, 32), CONCORDIA_SCHEMA);
    EXPECT(concordia_verify_object(U("{\"a\":"), 5, pk, 32), CONCORDIA_JSON_UNEXPECTED_END);
    EXPECT(concordia_verify_object(out, n, pk, 31), CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_verify_object(out, n, NULL, 32), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_verify_object(NULL, n, pk, 32), CONCORDIA_NULL_ARGUMENT);

    EXPECT(concordia_sign_object(kp, U("[1,2]"), 5, out, sizeof out, &n), CONCORDIA_SCHEMA);
    CHECK(n == 0);
    EXPECT(concordia_sign_object(kp, U("{\"a\":01}"), 8, out, sizeof out, &n), CONCORDIA_JSON_INVALID_NUMBER);
    EXPECT(concordia_sign_object(NULL, U(obj), strlen(obj), out, sizeof out, &n), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_sign_object(kp, NULL, 4, out, sizeof out, &n), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_sign_object(kp, U(obj), strlen(obj), out, sizeof out, NULL), CONCORDIA_NULL_ARGUMENT);

    concordia_keypair_free(kp);
    concordia_keypair_free(other);
}

/* ---- a negotiation: envelopes, session, transcript verifier, attestation ------------ */

#define SELLER "did:concordia:agent:camera-seller"
#define BUYER "did:concordia:agent:camera-buyer"
#define T0 1780000000 /* 2026-05-28T20:26:40Z */

struct step {
    const char *type;
    int from; /* 0 seller, 1 buyer */
    const char *body;
    const char *reasoning;
};

static const struct step STEPS[] = {
    {"negotiate.open", 0,
     "{\"terms\":{\"item\":{\"value\":\"Canon EOS R5\",\"type\":\"string\"},\"price\":{\"value\":2200,"
     "\"currency\":\"USD\",\"type\":\"numeric\"}},\"timing\":{\"session_ttl\":86400,\"offer_ttl\":3600,"
     "\"max_rounds\":20}}",
     "Selling a lightly used camera."},
    {"negotiate.accept_session", 1, "{}", NULL},
    {"negotiate.offer", 0,
     "{\"offer_id\":\"off_1\",\"terms\":{\"item\":{\"value\":\"Canon EOS R5\"},\"price\":{\"value\":2200,"
     "\"currency\":\"USD\"}},\"complete\":true}",
     NULL},
    {"negotiate.counter", 1,
     "{\"offer_id\":\"off_2\",\"terms\":{\"item\":{\"value\":\"Canon EOS R5\"},\"price\":{\"value\":2050,"
     "\"currency\":\"USD\"}},\"complete\":true}",
     "Comparable bodies sell for less."},
    {"negotiate.accept", 0, "{\"offer_id\":\"off_2\"}", "Deal."},
};
#define NSTEPS (sizeof STEPS / sizeof STEPS[0])

/* ---- a transcript file, verified one message at a time ------------------------------ */

/* Writes `count` messages to `path`: as a JSON array (`lines` 0, with `prefix` before it
 * and `suffix` after it), or as JSON Lines with blank lines between (`lines` 1). */
static void write_transcript(const char *path, uint8_t *const *msgs, const size_t *lens, size_t count, int lines,
                             const char *prefix, const char *suffix) {
    FILE *f = fopen(path, "wb");
    size_t i;
    CHECK(f != NULL);
    if (f == NULL) return;
    fputs(prefix, f);
    if (!lines) fputs("[", f);
    for (i = 0; i < count; i++) {
        if (i > 0) fputs(lines ? "\n\n" : ",\n", f);
        fwrite(msgs[i], 1, lens[i], f);
    }
    fputs(lines ? "\n" : "]", f);
    fputs(suffix, f);
    fclose(f);
}

static void test_transcript_file(const char *keys_json, uint8_t *const *msgs, const size_t *lens, size_t count,
                                 const char *tip) {
    char path[128];
    char head[80];
    uint64_t n = 7, failed_at = 7, off = 0;
    size_t hl = 0, kl = strlen(keys_json);
    uint8_t *skip[2];
    size_t skip_lens[2];
    int local = 0;
    sprintf(path, "/tmp/concordia-c-test-%lu-%lx.json", (unsigned long)time(NULL),
            (unsigned long)((size_t)&local & 0xffffffu));
#define VERIFY_FILE(fmt, cap, headcap) \
    concordia_verify_transcript_file(U(path), strlen(path), U(keys_json), kl, (fmt), (cap), &n, (uint8_t *)head, \
                                     (headcap), &hl, &failed_at)

    /* an array, JSON Lines and an object with a `messages` array: one summary */
    write_transcript(path, msgs, lens, count, 0, "", "");
    EXPECT(VERIFY_FILE(CONCORDIA_TRANSCRIPT_ARRAY, 0, sizeof head), CONCORDIA_OK);
    CHECK(n == count && hl == 71 && memcmp(head, tip, 71) == 0 && failed_at == UINT64_MAX);
    /* the head buffer is checked before the file is read */
    EXPECT(VERIFY_FILE(CONCORDIA_TRANSCRIPT_ARRAY, 0, 8), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(hl == 71 && n == 0);
    /* a cap below the file's size */
    EXPECT(VERIFY_FILE(CONCORDIA_TRANSCRIPT_ARRAY, 100, sizeof head), CONCORDIA_LIMIT_SIZE);
    /* the array is not JSON Lines: its first line does not parse (a 2xx code) */
    CHECK(VERIFY_FILE(CONCORDIA_TRANSCRIPT_LINES, 0, sizeof head) / 100 == 2);
    EXPECT(VERIFY_FILE(7, 0, sizeof head), CONCORDIA_INVALID_ARGUMENT);
    write_transcript(path, msgs, lens, count, 1, "", "");
    hl = 0;
    EXPECT(VERIFY_FILE(CONCORDIA_TRANSCRIPT_LINES, 0, sizeof head), CONCORDIA_OK);
    CHECK(n == count && hl == 71 && memcmp(head, tip, 71) == 0);
    write_transcript(path, msgs, lens, count, 0, "{\"messages\":", "}");
    hl = 0;
    EXPECT(VERIFY_FILE(CONCORDIA_TRANSCRIPT_ARRAY, 0, sizeof head), CONCORDIA_OK);
    CHECK(n == count && hl == 71 && memcmp(head, tip, 71) == 0);

    /* a message out of the chain: its index, and the messages before it */
    skip[0] = msgs[0];
    skip[1] = msgs[2];
    skip_lens[0] = lens[0];
    skip_lens[1] = lens[2];
    write_transcript(path, skip, skip_lens, 2, 0, "", "");
    EXPECT(VERIFY_FILE(CONCORDIA_TRANSCRIPT_ARRAY, 0, sizeof head), CONCORDIA_BINDING);
    CHECK(failed_at == 1 && n == 1 && hl == 0);
    write_transcript(path, skip, skip_lens, 2, 1, "", "");
    EXPECT(VERIFY_FILE(CONCORDIA_TRANSCRIPT_LINES, 0, sizeof head), CONCORDIA_BINDING);
    CHECK(failed_at == 1 && n == 1);
    /* ... but a file malformed after it is malformed (the whole file's verdict) */
    write_transcript(path, skip, skip_lens, 2, 0, "", ",");
    EXPECT(VERIFY_FILE(CONCORDIA_TRANSCRIPT_ARRAY, 0, sizeof head), CONCORDIA_JSON_TRAILING_BYTES);
    CHECK(failed_at == UINT64_MAX && n == 0);
    EXPECT(concordia_last_error_offset(&off), CONCORDIA_OK);
    CHECK(off == 4 + lens[0] + lens[2]);

    /* not a transcript; an empty one (count 0, the genesis head) */
    write_transcript(path, msgs, lens, 0, 0, "{\"messages\":{},\"x\":", "}");
    EXPECT(VERIFY_FILE(CONCORDIA_TRANSCRIPT_ARRAY, 0, sizeof head), CONCORDIA_SCHEMA);
    write_transcript(path, msgs, lens, 0, 0, " ", " ");
    EXPECT(VERIFY_FILE(CONCORDIA_TRANSCRIPT_ARRAY, 0, sizeof head), CONCORDIA_OK);
    CHECK(n == 0 && eq((uint8_t *)head, hl, "sha256:0000000000000000000000000000000000000000000000000000000000000000"));

    /* keys, a missing file, NULL and empty arguments */
    EXPECT(concordia_verify_transcript_file(U(path), strlen(path), U("[]"), 2, 0, 0, &n, (uint8_t *)head, sizeof head,
                                            &hl, &failed_at),
           CONCORDIA_SCHEMA);
    remove(path);
    EXPECT(VERIFY_FILE(CONCORDIA_TRANSCRIPT_ARRAY, 0, sizeof head), CONCORDIA_IO);
    EXPECT(concordia_verify_transcript_file(U(path), 0, U(keys_json), kl, 0, 0, &n, (uint8_t *)head, sizeof head, &hl,
                                            &failed_at),
           CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_verify_transcript_file(NULL, 0, U(keys_json), kl, 0, 0, &n, (uint8_t *)head, sizeof head, &hl,
                                            &failed_at),
           CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_verify_transcript_file(U(path), strlen(path), U(keys_json), kl, 0, 0, NULL, (uint8_t *)head,
                                            sizeof head, &hl, &failed_at),
           CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_verify_transcript_file(U(path), strlen(path), U(keys_json), kl, 0, 0, &n, (uint8_t *)head,
                                            sizeof head, &hl, NULL),
           CONCORDIA_NULL_ARGUMENT);
#undef VERIFY_FILE
}

static void test_negotiation(void) {
    concordia_keypair *keys[2] = {NULL, NULL};
    uint8_t pks[2][32];
    char b64[2][48];
    char keys_json[256];
    concordia_session *s = NULL;
    concordia_timing timing;
    concordia_state st = CONCORDIA_STATE_EXPIRED;
    uint8_t *msgs[NSTEPS];
    size_t lens[NSTEPS];
    char tip[80], id[16], ts[32];
    size_t n = 0, i;
    const char *ids[2] = {SELLER, BUYER};

    for (i = 0; i < 2; i++) {
        size_t k = 0;
        concordia_keypair_from_seed(i == 0 ? SEED7 : SEED9, 32, &keys[i]);
        concordia_keypair_public_key(keys[i], pks[i], 32, &k);
        concordia_keypair_public_key_b64url(keys[i], (uint8_t *)b64[i], sizeof b64[i] - 1, &k);
        b64[i][k] = '\0';
    }
    sprintf(keys_json, "{\"%s\":\"%s\",\"%s\":\"%s\"}", SELLER, b64[0], BUYER, b64[1]);

    EXPECT(concordia_timing_default(&timing), CONCORDIA_OK);
    CHECK(timing.session_ttl == 86400 && timing.offer_ttl == 3600 && timing.max_rounds == 20);
    EXPECT(concordia_timing_default(NULL), CONCORDIA_NULL_ARGUMENT);

    EXPECT(concordia_session_new(S("ses_c_test"), T0, NULL, &s), CONCORDIA_OK);
    EXPECT(concordia_session_state(s, &st), CONCORDIA_OK);
    CHECK(st == CONCORDIA_STATE_PROPOSED);
    EXPECT(concordia_session_add_party(s, S(SELLER), CONCORDIA_ROLE_INITIATOR, pks[0], 32), CONCORDIA_OK);
    /* the buyer's key comes from keys_json at apply time */
    EXPECT(concordia_session_add_party(s, S(BUYER), CONCORDIA_ROLE_RESPONDER, NULL, 0), CONCORDIA_OK);
    EXPECT(concordia_session_add_party(s, S(BUYER), 9, NULL, 0), CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_session_add_party(s, S(BUYER), CONCORDIA_ROLE_RESPONDER, pks[1], 5), CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_session_add_party(NULL, S(BUYER), CONCORDIA_ROLE_RESPONDER, NULL, 0), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_session_add_party(s, NONE, CONCORDIA_ROLE_RESPONDER, NULL, 0), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_session_tip(s, (uint8_t *)tip, sizeof tip, &n), CONCORDIA_OK);
    CHECK(eq((uint8_t *)tip, n, "sha256:0000000000000000000000000000000000000000000000000000000000000000"));

    for (i = 0; i < NSTEPS; i++) {
        concordia_envelope env;
        concordia_party to;
        size_t need = 0;
        int64_t now = T0 + 45 * ((int64_t)i + 1);
        memset(&env, 0, sizeof env);
        sprintf(id, "msg_%u", (unsigned)i);
        sprintf(ts, "2026-05-28T20:%02u:%02uZ", (unsigned)((26 * 60 + 40 + 45 * (i + 1)) / 60 % 60),
                (unsigned)((40 + 45 * (i + 1)) % 60));
        env.message_type = S(STEPS[i].type);
        env.id = S(id);
        env.session_id = S("ses_c_test");
        env.timestamp = S(ts);
        env.from.agent_id = S(ids[STEPS[i].from]);
        env.from.principal_id = NONE;
        to.agent_id = S(ids[1 - STEPS[i].from]);
        to.principal_id = NONE;
        env.to = &to;
        env.to_count = 1;
        n = 0;
        concordia_session_tip(s, (uint8_t *)tip, sizeof tip, &n);
        env.prev_hash.ptr = (const uint8_t *)tip;
        env.prev_hash.len = n;
        env.body_json = S(STEPS[i].body);
        env.reasoning = STEPS[i].reasoning ? S(STEPS[i].reasoning) : NONE;
        env.in_reply_to = NONE;
        env.concordia = NONE;
        /* size, allocate, sign */
        EXPECT(concordia_envelope_sign(keys[STEPS[i].from], &env, NULL, 0, &need), CONCORDIA_BUFFER_TOO_SMALL);
        msgs[i] = malloc(need);
        EXPECT(concordia_envelope_sign(keys[STEPS[i].from], &env, msgs[i], need, &lens[i]), CONCORDIA_OK);
        CHECK(lens[i] == need);
        /* a replay of the same message fails the chain once applied; the wrong signer fails now */
        if (i == 2) {
            uint8_t forged[2048];
            size_t fl = 0;
            EXPECT(concordia_envelope_sign(keys[1], &env, forged, sizeof forged, &fl), CONCORDIA_OK);
            EXPECT(concordia_session_apply(s, forged, fl, now, U(keys_json), strlen(keys_json), &st), CONCORDIA_SIGNATURE);
        }
        EXPECT(concordia_session_apply(s, msgs[i], lens[i], now, U(keys_json), strlen(keys_json), &st), CONCORDIA_OK);
        if (i == 1) {
            /* replaying a message breaks the chain: prev_hash no longer matches the tip */
            EXPECT(concordia_session_apply(s, msgs[i], lens[i], now, U(keys_json), strlen(keys_json), NULL), CONCORDIA_BINDING);
        }
    }
    CHECK(st == CONCORDIA_STATE_AGREED);
    EXPECT(concordia_session_state(s, &st), CONCORDIA_OK);
    CHECK(st == CONCORDIA_STATE_AGREED);
    {
        uint32_t rounds = 0;
        uint64_t count = 0;
        EXPECT(concordia_session_counts(s, &rounds, &count), CONCORDIA_OK);
        CHECK(rounds == 2 && count == NSTEPS);
        EXPECT(concordia_session_counts(s, NULL, NULL), CONCORDIA_OK);
        EXPECT(concordia_session_counts(NULL, &rounds, &count), CONCORDIA_NULL_ARGUMENT);
    }
    /* terminal: nothing more applies */
    EXPECT(concordia_session_apply(s, msgs[0], lens[0], T0 + 400, U(keys_json), strlen(keys_json), &st), CONCORDIA_BINDING);
    EXPECT(concordia_session_apply(s, U("{}"), 2, T0, NULL, 0, &st), CONCORDIA_SCHEMA);
    EXPECT(concordia_session_apply(s, U("{"), 1, T0, NULL, 0, &st), CONCORDIA_JSON_UNEXPECTED_END);
    EXPECT(concordia_session_apply(s, U("{}"), 2, T0, U("[]"), 2, &st), CONCORDIA_SCHEMA);
    EXPECT(concordia_session_apply(NULL, msgs[0], lens[0], T0, NULL, 0, &st), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_session_apply(s, NULL, 0, T0, NULL, 0, &st), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_session_state(NULL, &st), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_session_state(s, NULL), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_session_tip(s, (uint8_t *)tip, 10, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == 71);
    EXPECT(concordia_session_tip(NULL, (uint8_t *)tip, sizeof tip, &n), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_session_tip(s, (uint8_t *)tip, sizeof tip, &n), CONCORDIA_OK);

    /* the transcript verifier accepts the chain, one message at a time */
    {
        concordia_transcript_verifier *v = NULL;
        uint64_t count = 0;
        char head[80];
        size_t hl = 0;
        EXPECT(concordia_transcript_verifier_new(U(keys_json), strlen(keys_json), &v), CONCORDIA_OK);
        /* out of order: the second message first breaks the link */
        EXPECT(concordia_transcript_verifier_push(v, msgs[1], lens[1]), CONCORDIA_BINDING);
        for (i = 0; i < NSTEPS; i++) {
            EXPECT(concordia_transcript_verifier_push(v, msgs[i], lens[i]), CONCORDIA_OK);
        }
        EXPECT(concordia_transcript_verifier_push(v, U("{\"x\":"), 5), CONCORDIA_JSON_UNEXPECTED_END);
        EXPECT(concordia_transcript_verifier_push(v, U("[]"), 2), CONCORDIA_SCHEMA);
        EXPECT(concordia_transcript_verifier_push(v, NULL, 0), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_transcript_verifier_push(NULL, msgs[0], lens[0]), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_transcript_verifier_finish(v, &count, (uint8_t *)head, 8, &hl), CONCORDIA_BUFFER_TOO_SMALL);
        CHECK(hl == 71);
        EXPECT(concordia_transcript_verifier_finish(v, &count, (uint8_t *)head, sizeof head, &hl), CONCORDIA_OK);
        CHECK(count == NSTEPS);
        CHECK(hl == 71 && memcmp(head, tip, 71) == 0);
        EXPECT(concordia_transcript_verifier_push(v, msgs[0], lens[0]), CONCORDIA_INVALID_STATE);
        EXPECT(concordia_transcript_verifier_finish(v, NULL, (uint8_t *)head, sizeof head, &hl), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_transcript_verifier_finish(NULL, &count, (uint8_t *)head, sizeof head, &hl), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_transcript_verifier_finish(v, &count, (uint8_t *)head, sizeof head, NULL), CONCORDIA_NULL_ARGUMENT);
        concordia_transcript_verifier_free(v);
        concordia_transcript_verifier_free(NULL);

        /* a key map without the buyer: unknown key */
        {
            char only_seller[160];
            sprintf(only_seller, "{\"%s\":\"%s\"}", SELLER, b64[0]);
            v = NULL;
            EXPECT(concordia_transcript_verifier_new(U(only_seller), strlen(only_seller), &v), CONCORDIA_OK);
            EXPECT(concordia_transcript_verifier_push(v, msgs[0], lens[0]), CONCORDIA_OK);
            EXPECT(concordia_transcript_verifier_push(v, msgs[1], lens[1]), CONCORDIA_UNKNOWN_KEY);
            concordia_transcript_verifier_free(v);
        }
        v = (concordia_transcript_verifier *)1;
        EXPECT(concordia_transcript_verifier_new(U("[]"), 2, &v), CONCORDIA_SCHEMA);
        CHECK(v == NULL);
        EXPECT(concordia_transcript_verifier_new(U("{"), 1, &v), CONCORDIA_JSON_UNEXPECTED_END);
        EXPECT(concordia_transcript_verifier_new(NULL, 0, &v), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_transcript_verifier_new(U("{}"), 2, NULL), CONCORDIA_NULL_ARGUMENT);
    }
    test_transcript_file(keys_json, msgs, lens, NSTEPS, tip);

    /* attestation: generate from the session, verify with and without the transcript */
    {
        concordia_attestation_params p;
        concordia_signer signers[2];
        concordia_attestation_verified ver;
        uint8_t *att = NULL;
        size_t need = 0, alen = 0, total = 2;
        uint8_t *transcript;
        size_t tl = 0;

        memset(&p, 0, sizeof p);
        p.attestation_id = S("att_c_test");
        p.now = T0 + 300;
        p.validity_mode = CONCORDIA_VALIDITY_ABSOLUTE;
        p.validity_from = T0 + 300;
        p.validity_until = T0 + 300 + 90 * 86400;
        p.category = S("electronics.cameras");
        p.value_range = S("1000-5000_USD");
        p.resolution_mechanism = S("direct");
        signers[0].agent_id = S(SELLER);
        signers[0].keypair = keys[0];
        signers[1].agent_id = S(BUYER);
        signers[1].keypair = keys[1];

        EXPECT(concordia_attestation_generate(s, &p, signers, 2, NULL, 0, &need), CONCORDIA_BUFFER_TOO_SMALL);
        CHECK(need > 1000);
        att = malloc(need);
        EXPECT(concordia_attestation_generate(s, &p, signers, 2, att, need, &alen), CONCORDIA_OK);
        CHECK(alen == need);

        for (i = 0; i < NSTEPS; i++) total += lens[i] + 1;
        transcript = malloc(total);
        transcript[tl++] = '[';
        for (i = 0; i < NSTEPS; i++) {
            if (i) transcript[tl++] = ',';
            memcpy(transcript + tl, msgs[i], lens[i]);
            tl += lens[i];
        }
        transcript[tl++] = ']';

        memset(&ver, 0xff, sizeof ver);
        EXPECT(concordia_attestation_verify(att, alen, U(keys_json), strlen(keys_json), transcript, tl, &ver), CONCORDIA_OK);
        CHECK(ver.parties == 2 && ver.countersignatures == 2 && ver.binding == CONCORDIA_SET_BINDING_BOUND);
        EXPECT(concordia_attestation_verify(att, alen, U(keys_json), strlen(keys_json), NULL, 0, &ver), CONCORDIA_OK);
        CHECK(ver.binding == CONCORDIA_SET_BINDING_UNCHECKED);
        EXPECT(concordia_attestation_verify(att, alen, U(keys_json), strlen(keys_json), NULL, 0, NULL), CONCORDIA_OK);
        /* a shorter transcript is not the one bound */
        {
            size_t cut = 1 + lens[0] + 1 + lens[1];
            uint8_t save = transcript[cut];
            transcript[cut] = ']';
            EXPECT(concordia_attestation_verify(att, alen, U(keys_json), strlen(keys_json), transcript, cut + 1, &ver), CONCORDIA_BINDING);
            transcript[cut] = save;
        }
        /* the other party's key for the seller: signature */
        {
            char swapped[256];
            sprintf(swapped, "{\"%s\":\"%s\",\"%s\":\"%s\"}", SELLER, b64[1], BUYER, b64[1]);
            EXPECT(concordia_attestation_verify(att, alen, U(swapped), strlen(swapped), NULL, 0, &ver), CONCORDIA_SIGNATURE);
        }
        EXPECT(concordia_attestation_verify(U("{}"), 2, U(keys_json), strlen(keys_json), NULL, 0, &ver), CONCORDIA_SCHEMA);
        EXPECT(concordia_attestation_verify(att, alen, U("[]"), 2, NULL, 0, &ver), CONCORDIA_SCHEMA);
        EXPECT(concordia_attestation_verify(att, alen - 1, U(keys_json), strlen(keys_json), NULL, 0, &ver), CONCORDIA_JSON_UNEXPECTED_END);
        EXPECT(concordia_attestation_verify(NULL, 0, U(keys_json), strlen(keys_json), NULL, 0, &ver), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_attestation_verify(att, alen, NULL, 0, NULL, 0, &ver), CONCORDIA_NULL_ARGUMENT);

        /* generate: error paths */
        EXPECT(concordia_attestation_generate(s, &p, signers, 2, att, need - 1, &alen), CONCORDIA_BUFFER_TOO_SMALL);
        CHECK(alen == need);
        p.attestation_id = S("att_$5");
        EXPECT(concordia_attestation_generate(s, &p, signers, 2, att, need, &alen), CONCORDIA_PRIVACY);
        p.attestation_id = S("att_c_test");
        p.category = S("Not A Category");
        EXPECT(concordia_attestation_generate(s, &p, signers, 2, att, need, &alen), CONCORDIA_INVALID_ARGUMENT);
        p.category = NONE;
        p.validity_mode = 7;
        EXPECT(concordia_attestation_generate(s, &p, signers, 2, att, need, &alen), CONCORDIA_INVALID_ARGUMENT);
        p.validity_mode = CONCORDIA_VALIDITY_RELATIVE;
        p.validity_duration_seconds = 3600;
        EXPECT(concordia_attestation_generate(s, &p, signers, 2, NULL, 0, &alen), CONCORDIA_BUFFER_TOO_SMALL);
        p.validity_mode = CONCORDIA_VALIDITY_WINDOW;
        EXPECT(concordia_attestation_generate(s, &p, signers, 2, NULL, 0, &alen), CONCORDIA_BUFFER_TOO_SMALL);
        /* without signers: unsigned records, still a valid size query */
        EXPECT(concordia_attestation_generate(s, &p, NULL, 0, NULL, 0, &alen), CONCORDIA_BUFFER_TOO_SMALL);
        EXPECT(concordia_attestation_generate(s, &p, NULL, 2, att, need, &alen), CONCORDIA_NULL_ARGUMENT);
        signers[1].keypair = NULL;
        EXPECT(concordia_attestation_generate(s, &p, signers, 2, att, need, &alen), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_attestation_generate(NULL, &p, signers, 2, att, need, &alen), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_attestation_generate(s, NULL, signers, 2, att, need, &alen), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_attestation_generate(s, &p, signers, 2, att, need, NULL), CONCORDIA_NULL_ARGUMENT);
        free(transcript);
        free(att);
    }

    for (i = 0; i < NSTEPS; i++) free(msgs[i]);
    concordia_session_free(s);
    concordia_session_free(NULL);

    /* a fresh session: transition, temporal, max rounds, capacity, not concluded */
    {
        concordia_timing one_round = {86400, 3600, 1};
        concordia_envelope env;
        uint8_t m[2048];
        size_t ml = 0;
        char tipbuf[80];
        size_t tn = 0;
        concordia_attestation_params p;
        size_t alen = 0;
        unsigned k;

        memset(&env, 0, sizeof env);
        memset(&p, 0, sizeof p);
        p.attestation_id = S("att_c_test");
        p.resolution_mechanism = S("direct");
        s = NULL;
        EXPECT(concordia_session_new(S("ses_two"), T0, &one_round, &s), CONCORDIA_OK);
        concordia_session_add_party(s, S(SELLER), CONCORDIA_ROLE_INITIATOR, pks[0], 32);
        concordia_session_add_party(s, S(BUYER), CONCORDIA_ROLE_RESPONDER, pks[1], 32);
        env.message_type = S("negotiate.offer");
        env.id = S("m1");
        env.session_id = S("ses_two");
        env.timestamp = S("2026-05-28T20:30:00Z");
        env.from.agent_id = S(SELLER);
        env.body_json = S(STEPS[2].body);
        /* an offer in PROPOSED: transition */
        EXPECT(concordia_envelope_sign(keys[0], &env, m, sizeof m, &ml), CONCORDIA_OK);
        EXPECT(concordia_session_apply(s, m, ml, T0 + 10, NULL, 0, NULL), CONCORDIA_TRANSITION);
        /* after the session TTL: temporal */
        EXPECT(concordia_session_apply(s, m, ml, T0 + 86401, NULL, 0, NULL), CONCORDIA_TEMPORAL);
        /* another session id: binding */
        env.session_id = S("ses_other");
        EXPECT(concordia_envelope_sign(keys[0], &env, m, sizeof m, &ml), CONCORDIA_OK);
        EXPECT(concordia_session_apply(s, m, ml, T0 + 10, NULL, 0, NULL), CONCORDIA_BINDING);
        env.session_id = S("ses_two");
        /* open, accept_session, then one offer is allowed and the second is not */
        env.message_type = S("negotiate.open");
        env.body_json = S(STEPS[0].body);
        EXPECT(concordia_envelope_sign(keys[0], &env, m, sizeof m, &ml), CONCORDIA_OK);
        EXPECT(concordia_session_apply(s, m, ml, T0 + 10, NULL, 0, NULL), CONCORDIA_OK);
        EXPECT(concordia_attestation_generate(s, &p, NULL, 0, m, sizeof m, &alen), CONCORDIA_TRANSITION);
        for (k = 0; k < 3; k++) {
            static const char *types[3] = {"negotiate.accept_session", "negotiate.offer", "negotiate.counter"};
            static const char *bodies[3] = {"{}", NULL, NULL};
            concordia_session_tip(s, (uint8_t *)tipbuf, sizeof tipbuf, &tn);
            env.prev_hash.ptr = (const uint8_t *)tipbuf;
            env.prev_hash.len = tn;
            env.message_type = S(types[k]);
            env.body_json = S(bodies[k] ? bodies[k] : STEPS[2 + k / 2].body);
            env.from.agent_id = S(k == 1 ? SELLER : BUYER);
            EXPECT(concordia_envelope_sign(keys[k == 1 ? 0 : 1], &env, m, sizeof m, &ml), CONCORDIA_OK);
            EXPECT(concordia_session_apply(s, m, ml, T0 + 20 + k, NULL, 0, NULL),
                   k == 2 ? CONCORDIA_MAX_ROUNDS : CONCORDIA_OK);
        }
        /* a party table of 8 is full at the 9th */
        for (k = 0; k < 6; k++) {
            char who[16];
            sprintf(who, "agent-%u", k);
            EXPECT(concordia_session_add_party(s, S(who), CONCORDIA_ROLE_WITNESS, NULL, 0), CONCORDIA_OK);
        }
        EXPECT(concordia_session_add_party(s, S("agent-9"), CONCORDIA_ROLE_MEDIATOR, NULL, 0), CONCORDIA_LIMIT_CAPACITY);
        /* envelope error paths */
        env.prev_hash = S("sha256:nothex");
        EXPECT(concordia_envelope_sign(keys[0], &env, m, sizeof m, &ml), CONCORDIA_ENCODING);
        env.prev_hash = NONE;
        env.body_json = S("{\"a\":}");
        EXPECT(concordia_envelope_sign(keys[0], &env, m, sizeof m, &ml), CONCORDIA_JSON_UNEXPECTED_BYTE);
        env.body_json = NONE;
        EXPECT(concordia_envelope_sign(keys[0], &env, m, sizeof m, &ml), CONCORDIA_NULL_ARGUMENT);
        env.body_json = S("{}");
        env.has_ttl = 1;
        env.ttl = 9007199254740992ULL;
        EXPECT(concordia_envelope_sign(keys[0], &env, m, sizeof m, &ml), CONCORDIA_INVALID_ARGUMENT);
        env.ttl = 300;
        env.in_reply_to = S("m0");
        env.concordia = S("0.1.0");
        env.from.principal_id = S("did:web:owner.example");
        EXPECT(concordia_envelope_sign(keys[0], &env, m, sizeof m, &ml), CONCORDIA_OK);
        CHECK(strstr((const char *)m, "\"ttl\":300") != NULL || ml > 0);
        env.to = NULL;
        env.to_count = 2;
        EXPECT(concordia_envelope_sign(keys[0], &env, m, sizeof m, &ml), CONCORDIA_NULL_ARGUMENT);
        env.to_count = 0;
        env.id = NONE;
        EXPECT(concordia_envelope_sign(keys[0], &env, m, sizeof m, &ml), CONCORDIA_OK);
        env.id.ptr = U("\xff");
        env.id.len = 1;
        EXPECT(concordia_envelope_sign(keys[0], &env, m, sizeof m, &ml), CONCORDIA_INVALID_ARGUMENT);
        EXPECT(concordia_envelope_sign(keys[0], NULL, m, sizeof m, &ml), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_envelope_sign(NULL, &env, m, sizeof m, &ml), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_envelope_sign(keys[0], &env, m, sizeof m, NULL), CONCORDIA_NULL_ARGUMENT);
        concordia_session_free(s);

        /* session_new error paths */
        {
            char long_id[200];
            memset(long_id, 'x', sizeof long_id - 1);
            long_id[sizeof long_id - 1] = '\0';
            s = (concordia_session *)1;
            EXPECT(concordia_session_new(S(long_id), T0, NULL, &s), CONCORDIA_INVALID_ARGUMENT);
            CHECK(s == NULL);
            EXPECT(concordia_session_new(NONE, T0, NULL, &s), CONCORDIA_NULL_ARGUMENT);
            EXPECT(concordia_session_new(S("x"), T0, NULL, NULL), CONCORDIA_NULL_ARGUMENT);
        }
    }
    concordia_keypair_free(keys[0]);
    concordia_keypair_free(keys[1]);
}

/* ---- conformance profiles ------------------------------------------------------- */

static void test_profiles(void) {
    uint8_t name[64];
    size_t n = 0, i;
    int all = 1;
    const char *decision =
        "{\"boundary_id\":\"urn:a2a:boundary:acme-procurement-hitl\",\"capability_digest\":\"sha256:"
        "dddfb8f55c9ff12ccd3ff0a5b065956b3a508b4be38eee74ad90c91c74aca932\",\"decision\":\"approve\","
        "\"policy_version\":\"acme-procurement-policy@2026-05-01\",\"request_digest\":\"sha256:"
        "2cf9882e0ceee36278318a376117cc03da510c6994c3679a57eb4777dc8e06cb\",\"verifier\":"
        "\"did:web:acme.example#procurement-lead\"}";
    const char *ctx_ok = "{\"expected_decision_id\":\"sha256:15f84f2cf53ba52a6d0ba7d859d7c1a7bb6c21cfd5be7d036d2d998fd2eec28e\"}";
    const char *ctx_bad = "{\"expected_decision_id\":\"sha256:25f84f2cf53ba52a6d0ba7d859d7c1a7bb6c21cfd5be7d036d2d998fd2eec28e\"}";
    const char *transition =
        "{\"attempt_transition\":\"PROPOSED\",\"expected\":\"InvalidTransitionError\",\"initial_session\":"
        "{\"activated_at\":null,\"activation_deadline\":\"2026-05-18T13:00:00+00:00\",\"activation_proof_id\":"
        "null,\"chain_session_id\":\"urn:concordia:chain-session:transition-vector\",\"closure_predicate_ref\":"
        "\"urn:concordia:predicate:transition-vector\",\"commitments\":[],\"created_at\":"
        "\"2026-05-18T10:00:00+00:00\",\"dissolved_at\":null,\"participants\":[\"did:web:r.test\","
        "\"did:web:w.test\"],\"state\":\"OPEN\",\"unwind_record_id\":null},\"transition_now\":"
        "\"2026-05-18T12:00:00+00:00\"}";

    for (i = 0; i < CONCORDIA_PROFILE_COUNT; i++) {
        concordia_str p;
        concordia_result r;
        if (concordia_profile_name(i, name, sizeof name, &n) != CONCORDIA_OK) all = 0;
        p.ptr = name;
        p.len = n;
        /* every profile name is known and runs: an empty record is rejected by the
           profile itself (a protocol code), never with a usage code */
        r = concordia_verify_profile(p, U("{}"), 2, U("{}"), 2);
        if (r < 200) {
            fprintf(stderr, "  profile %.*s: %u\n", (int)n, (const char *)name, (unsigned)r);
            all = 0;
        }
    }
    CHECK(all);
    EXPECT(concordia_profile_name(CONCORDIA_PROFILE_COUNT, name, sizeof name, &n), CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_profile_name(0, name, 3, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == strlen("decision-object-v1"));
    EXPECT(concordia_profile_name(0, name, sizeof name, NULL), CONCORDIA_NULL_ARGUMENT);

    EXPECT(concordia_verify_profile(S("decision-object-v1"), U(decision), strlen(decision), U(ctx_ok), strlen(ctx_ok)), CONCORDIA_OK);
    EXPECT(concordia_verify_profile(S("decision-object-v1"), U(decision), strlen(decision), U(ctx_bad), strlen(ctx_bad)), CONCORDIA_DIGEST);
    EXPECT(concordia_verify_profile(S("chain-session-transition-v1"), U(transition), strlen(transition), U("{}"), 2), CONCORDIA_TRANSITION);
    EXPECT(concordia_verify_profile(S("decision-object-v1"), U(decision), strlen(decision), U("[]"), 2), CONCORDIA_SCHEMA);
    EXPECT(concordia_verify_profile(S("no-such-profile-v1"), U(decision), strlen(decision), U(ctx_ok), strlen(ctx_ok)), CONCORDIA_UNKNOWN_PROFILE);
    EXPECT(concordia_verify_profile(S("decision-object-v1"), U("{\"a\":1,}"), 8, U(ctx_ok), strlen(ctx_ok)), CONCORDIA_JSON_UNEXPECTED_BYTE);
    EXPECT(concordia_verify_profile(NONE, U(decision), strlen(decision), U(ctx_ok), strlen(ctx_ok)), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_verify_profile(S("decision-object-v1"), NULL, 0, U(ctx_ok), strlen(ctx_ok)), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_verify_profile(S("decision-object-v1"), U(decision), strlen(decision), NULL, 0), CONCORDIA_NULL_ARGUMENT);
}

/* ---- AIP replay window: check, snapshot, restore, cold start (issue 19) ---------- */

#define RW_NOW 1778423100 /* 2026-05-10T14:25:00Z */
#define RW_CREATED "2026-05-10T14:25:00Z"
#define RW_A "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b"
#define RW_B "2341a9c9-1109-4602-bc5c-4b14a1e3c833"
#define RW_FROM "did:aip:aigentix.org:alice"
#define RW_OTHER "did:aip:evil.example:mallory"

static void test_aip_replay_window(void) {
    concordia_aip_replay_window *w = NULL, *r = NULL;
    concordia_aip_verdict v = CONCORDIA_AIP_DUPLICATE;
    uint8_t flag = 9;
    size_t len = 0, cap = 0, need = 0, n = 0;
    uint8_t *snap;

    EXPECT(concordia_aip_replay_window_new(0, &w), CONCORDIA_INVALID_ARGUMENT);
    CHECK(w == NULL);
    EXPECT(concordia_aip_replay_window_new(CONCORDIA_AIP_REPLAY_MAX_CAPACITY + 1, &w), CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_aip_replay_window_new(16, NULL), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_aip_replay_window_new(16, &w), CONCORDIA_OK);
    CHECK(w != NULL);

    EXPECT(concordia_aip_replay_window_check(w, S(RW_FROM), S(RW_A), S(RW_CREATED), RW_NOW, &v), CONCORDIA_OK);
    CHECK(v == CONCORDIA_AIP_FRESH);
    EXPECT(concordia_aip_replay_window_check(w, S(RW_FROM), S(RW_A), S(RW_CREATED), RW_NOW + 5, &v), CONCORDIA_OK);
    CHECK(v == CONCORDIA_AIP_DUPLICATE);
    /* Refused on time with a later now: nothing changes, the clock included. */
    EXPECT(concordia_aip_replay_window_check(w, S(RW_FROM), S(RW_B), S(RW_CREATED), RW_NOW + 601, &v), CONCORDIA_TEMPORAL);
    /* The clock is RW_NOW + 5 (the latest accepted check): 301 s ahead is refused. */
    EXPECT(concordia_aip_replay_window_check(w, S(RW_FROM), S(RW_B), S("2026-05-10T14:30:06Z"), RW_NOW, &v), CONCORDIA_TEMPORAL);
    EXPECT(concordia_aip_replay_window_check(w, S(RW_FROM), S(RW_B), S(RW_CREATED), RW_NOW, &v), CONCORDIA_OK);
    CHECK(v == CONCORDIA_AIP_FRESH);
    EXPECT(concordia_aip_replay_window_check(w, S(RW_FROM), S("not-a-uuid"), S(RW_CREATED), RW_NOW, &v), CONCORDIA_SCHEMA);
    EXPECT(concordia_aip_replay_window_check(w, S(RW_FROM), S(RW_B), S("yesterday"), RW_NOW, &v), CONCORDIA_SCHEMA);
    EXPECT(concordia_aip_replay_window_check(w, S(RW_FROM), NONE, S(RW_CREATED), RW_NOW, &v), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_aip_replay_window_check(NULL, S(RW_FROM), S(RW_A), S(RW_CREATED), RW_NOW, &v), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_aip_replay_window_check(w, S(RW_FROM), S(RW_A), S(RW_CREATED), RW_NOW, NULL), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_aip_replay_window_contains(w, S(RW_FROM), S(RW_A), &flag), CONCORDIA_OK);
    CHECK(flag == 1);
    EXPECT(concordia_aip_replay_window_len(w, &len, &cap), CONCORDIA_OK);
    CHECK(len == 2 && cap == 16);
    EXPECT(concordia_aip_replay_window_len(w, NULL, NULL), CONCORDIA_OK);

    /* Issue 32: keyed by sender and id: another sender's copy of RW_A is another message. */
    EXPECT(concordia_aip_replay_window_check(w, S(RW_OTHER), S(RW_A), S(RW_CREATED), RW_NOW, &v), CONCORDIA_OK);
    CHECK(v == CONCORDIA_AIP_FRESH);
    EXPECT(concordia_aip_replay_window_contains(w, S(RW_OTHER), S(RW_B), &flag), CONCORDIA_OK);
    CHECK(flag == 0);
    EXPECT(concordia_aip_replay_window_check(w, NONE, S(RW_A), S(RW_CREATED), RW_NOW, &v), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_aip_replay_window_len(w, &len, NULL), CONCORDIA_OK);
    CHECK(len == 3);

    /* Snapshot: size query, then the bytes (76 + 28 per message). */
    EXPECT(concordia_aip_replay_window_snapshot(w, NULL, 0, &need), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(need == 76 + 3 * 28);
    EXPECT(concordia_aip_replay_window_snapshot(w, NULL, 0, NULL), CONCORDIA_NULL_ARGUMENT);
    snap = malloc(need);
    CHECK(snap != NULL);
    if (snap == NULL) {
        concordia_aip_replay_window_free(w);
        return;
    }
    EXPECT(concordia_aip_replay_window_snapshot(w, snap, need - 1, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == need);
    EXPECT(concordia_aip_replay_window_snapshot(w, snap, need, &n), CONCORDIA_OK);
    CHECK(n == need);

    {
        uint64_t g = 9;
        EXPECT(concordia_aip_replay_window_generation(w, &g), CONCORDIA_OK);
        CHECK(g == 1);
    }

    /* Restored: the same verdicts. */
    EXPECT(concordia_aip_replay_window_new(16, &r), CONCORDIA_OK);
    EXPECT(concordia_aip_replay_window_restore(r, snap, n, RW_NOW), CONCORDIA_OK);
    EXPECT(concordia_aip_replay_window_check(r, S(RW_FROM), S(RW_A), S(RW_CREATED), RW_NOW, &v), CONCORDIA_OK);
    CHECK(v == CONCORDIA_AIP_DUPLICATE);
    EXPECT(concordia_aip_replay_window_is_cold_started(r, &flag), CONCORDIA_OK);
    CHECK(flag == 0);

    /* Truncated, bit-flipped, empty: refused, and the window starts cold. */
    EXPECT(concordia_aip_replay_window_restore(r, snap, n - 1, RW_NOW), CONCORDIA_ENCODING);
    EXPECT(concordia_aip_replay_window_is_cold_started(r, &flag), CONCORDIA_OK);
    CHECK(flag == 1);
    EXPECT(concordia_aip_replay_window_len(r, &len, NULL), CONCORDIA_OK);
    CHECK(len == 0);
    EXPECT(concordia_aip_replay_window_check(r, S(RW_FROM), S(RW_A), S(RW_CREATED), RW_NOW, &v), CONCORDIA_TEMPORAL);
    snap[n / 2] ^= 0x40;
    EXPECT(concordia_aip_replay_window_restore(r, snap, n, RW_NOW), CONCORDIA_ENCODING);
    snap[n / 2] ^= 0x40;
    EXPECT(concordia_aip_replay_window_restore(r, NULL, 0, RW_NOW), CONCORDIA_ENCODING);
    EXPECT(concordia_aip_replay_window_restore(r, NULL, 5, RW_NOW), CONCORDIA_NULL_ARGUMENT);
    /* More ids than the capacity. */
    {
        concordia_aip_replay_window *tiny = NULL;
        EXPECT(concordia_aip_replay_window_new(2, &tiny), CONCORDIA_OK);
        EXPECT(concordia_aip_replay_window_restore(tiny, snap, n, RW_NOW), CONCORDIA_LIMIT_CAPACITY);
        concordia_aip_replay_window_free(tiny);
    }
    /* The explicit opt-out, and a cold start by hand. */
    EXPECT(concordia_aip_replay_window_end_cold_start(r), CONCORDIA_OK);
    EXPECT(concordia_aip_replay_window_check(r, S(RW_FROM), S(RW_A), S(RW_CREATED), RW_NOW, &v), CONCORDIA_OK);
    CHECK(v == CONCORDIA_AIP_FRESH);
    EXPECT(concordia_aip_replay_window_cold_start(r, RW_NOW), CONCORDIA_OK);
    EXPECT(concordia_aip_replay_window_check(r, S(RW_FROM), S(RW_B), S(RW_CREATED), RW_NOW, &v), CONCORDIA_TEMPORAL);
    /* Issue 32: the guard covers what the lost window accepted up to 300 s ahead. */
    EXPECT(concordia_aip_replay_window_check(r, S(RW_FROM), S(RW_B), S("2026-05-10T14:30:00Z"), RW_NOW, &v), CONCORDIA_TEMPORAL);

    /* Issue 32: sealed snapshots. An edited, foreign-owner, unsealed or older one is
       refused (BINDING), fail closed; the genuine one restores. */
    {
        static const uint8_t key[32] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
                                        7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7};
        uint8_t old[256], cur[256], plain[256];
        size_t old_n = 0, cur_n = 0, plain_n = 0;
        uint64_t g = 0;
        concordia_aip_replay_window *x = NULL;
        EXPECT(concordia_aip_replay_window_snapshot_sealed(w, key, 32, U(RW_FROM), strlen(RW_FROM), old, sizeof old, &old_n), CONCORDIA_OK);
        EXPECT(concordia_aip_replay_window_snapshot_sealed(w, key, 32, U(RW_FROM), strlen(RW_FROM), cur, sizeof cur, &cur_n), CONCORDIA_OK);
        EXPECT(concordia_aip_replay_window_generation(w, &g), CONCORDIA_OK);
        CHECK(g == 3);
        EXPECT(concordia_aip_replay_window_snapshot(w, plain, sizeof plain, &plain_n), CONCORDIA_OK);
        EXPECT(concordia_aip_replay_window_snapshot_sealed(w, key, 15, NULL, 0, cur, sizeof cur, &n), CONCORDIA_INVALID_ARGUMENT);
        EXPECT(concordia_aip_replay_window_snapshot_sealed(w, NULL, 0, U(RW_FROM), 3, cur, sizeof cur, &n), CONCORDIA_INVALID_ARGUMENT);
        EXPECT(concordia_aip_replay_window_new(16, &x), CONCORDIA_OK);
        EXPECT(concordia_aip_replay_window_restore_sealed(x, old, old_n, RW_NOW, key, 32, U(RW_FROM), strlen(RW_FROM), 3), CONCORDIA_BINDING);
        EXPECT(concordia_aip_replay_window_is_cold_started(x, &flag), CONCORDIA_OK);
        CHECK(flag == 1);
        EXPECT(concordia_aip_replay_window_restore_sealed(x, cur, cur_n, RW_NOW, key, 32, U(RW_OTHER), strlen(RW_OTHER), 0), CONCORDIA_BINDING);
        EXPECT(concordia_aip_replay_window_restore_sealed(x, plain, plain_n, RW_NOW, key, 32, U(RW_FROM), strlen(RW_FROM), 0), CONCORDIA_BINDING);
        EXPECT(concordia_aip_replay_window_restore(x, cur, cur_n, RW_NOW), CONCORDIA_BINDING);
        cur[40] ^= 1;
        EXPECT(concordia_aip_replay_window_restore_sealed(x, cur, cur_n, RW_NOW, key, 32, U(RW_FROM), strlen(RW_FROM), 0), CONCORDIA_BINDING);
        cur[40] ^= 1;
        EXPECT(concordia_aip_replay_window_restore_sealed(x, cur, cur_n, RW_NOW, key, 32, U(RW_FROM), strlen(RW_FROM), 3), CONCORDIA_OK);
        EXPECT(concordia_aip_replay_window_check(x, S(RW_FROM), S(RW_A), S(RW_CREATED), RW_NOW, &v), CONCORDIA_OK);
        CHECK(v == CONCORDIA_AIP_DUPLICATE);
        EXPECT(concordia_aip_replay_window_generation(x, NULL), CONCORDIA_NULL_ARGUMENT);
        concordia_aip_replay_window_free(x);
    }
    EXPECT(concordia_aip_replay_window_cold_start(NULL, RW_NOW), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_aip_replay_window_end_cold_start(NULL), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_aip_replay_window_is_cold_started(r, NULL), CONCORDIA_NULL_ARGUMENT);

    free(snap);
    concordia_aip_replay_window_free(r);
    concordia_aip_replay_window_free(w);
    concordia_aip_replay_window_free(NULL);
}

/* ES256: the SDK's signed message (concordia-protocol 0.10.0, sign_message(..., alg="ES256")
 * with the key of scalar bytes 1..32), its high-S twin, our deterministic signatures, and the
 * key and scalar refusals. */
static void test_es256(void) {
    static const char *sdk_msg =
        "{\"concordia\":\"interop\",\"n\":1,\"text\":\"h\\u00e9llo\",\"signature\":"
        "\"MEUCIQDCbJPtS5AVE6yoVCADcYKeJ9viS43YVgV1jRCCSqdpqwIgOKr-uD_bCr7uIcvbTKhDAgytybG9tJzgMk_3-vExJWM=\"}";
    static const char *high_s =
        "{\"concordia\":\"interop\",\"n\":1,\"text\":\"h\\u00e9llo\",\"signature\":"
        "\"MEYCIQDCbJPtS5AVE6yoVCADcYKeJ9viS43YVgV1jRCCSqdpqwIhAMdVAUbAJPVCEd40JLNXvP2wOTD76WMBpMFp0sgLMf_u\"}";
    static const char *sdk_pk_b64 =
        "BFFcPW6545a5BNP-yn9U_c0MwemXvzddylFa0KbDtANfRTa-OlDzGPv5pUdZAqIhUCvvDVfgjFOyzApW8X2fk1Q=";
    concordia_es256_keypair *kp = NULL, *gen = NULL;
    uint8_t d[32], pk[65], sdk_pk[65], b64[96], out[512], out2[512], back[32];
    size_t n = 0, m = 0, i;
    for (i = 0; i < 32; i++) {
        d[i] = (uint8_t)(i + 1);
    }
    EXPECT(concordia_es256_keypair_from_scalar(d, 32, &kp), CONCORDIA_OK);
    EXPECT(concordia_es256_keypair_public_key_b64url(kp, b64, sizeof b64, &n), CONCORDIA_OK);
    CHECK(n == 88 && memcmp(b64, sdk_pk_b64, 88) == 0);
    EXPECT(concordia_es256_keypair_public_key(kp, pk, sizeof pk, &n), CONCORDIA_OK);
    CHECK(n == 65 && pk[0] == 4);
    EXPECT(concordia_es256_public_key_from_b64(S(sdk_pk_b64), sdk_pk, sizeof sdk_pk, &n), CONCORDIA_OK);
    CHECK(n == 65 && memcmp(pk, sdk_pk, 65) == 0);
    EXPECT(concordia_es256_keypair_scalar(kp, back, sizeof back, &n), CONCORDIA_OK);
    CHECK(n == 32 && memcmp(back, d, 32) == 0);

    /* The SDK's signature verifies; its high-S twin does not (the SDK refuses it too). */
    EXPECT(concordia_es256_verify_object(U(sdk_msg), strlen(sdk_msg), pk, 65), CONCORDIA_OK);
    EXPECT(concordia_es256_verify_object(U(high_s), strlen(high_s), pk, 65), CONCORDIA_SIGNATURE);
    /* Ed25519's verifier refuses the DER text: not the one spelling of 64 bytes. */
    EXPECT(concordia_verify_object(U(sdk_msg), strlen(sdk_msg), pk, 32), CONCORDIA_ENCODING);

    /* Sign: a size query, then deterministic output that verifies. */
    EXPECT(concordia_es256_sign_object(kp, U("{\"b\":2,\"a\":1}"), 13, NULL, 0, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n > 100 && n <= sizeof out);
    EXPECT(concordia_es256_sign_object(kp, U("{\"b\":2,\"a\":1}"), 13, out, n, &m), CONCORDIA_OK);
    CHECK(m <= n && m > 100 && memcmp(out, "{\"a\":1,\"b\":2,\"signature\":\"", 26) == 0);
    EXPECT(concordia_es256_sign_object(kp, U("{\"b\":2,\"a\":1}"), 13, out2, sizeof out2, &n), CONCORDIA_OK);
    CHECK(n == m && memcmp(out, out2, m) == 0);
    EXPECT(concordia_es256_verify_object(out, m, pk, 65), CONCORDIA_OK);
    out[5] = '7'; /* "a":1 -> "a":7 */
    EXPECT(concordia_es256_verify_object(out, m, pk, 65), CONCORDIA_SIGNATURE);

    /* Keys: compressed form accepted; off the curve, identity, other lengths refused. */
    {
        uint8_t c[33], off[65];
        c[0] = (uint8_t)(2 | (pk[64] & 1));
        memcpy(c + 1, pk + 1, 32);
        EXPECT(concordia_es256_verify_object(U(sdk_msg), strlen(sdk_msg), c, 33), CONCORDIA_OK);
        memcpy(off, pk, 65);
        off[64] ^= 1;
        EXPECT(concordia_es256_verify_object(U(sdk_msg), strlen(sdk_msg), off, 65), CONCORDIA_ENCODING);
        EXPECT(concordia_es256_verify_object(U(sdk_msg), strlen(sdk_msg), U("\0"), 1), CONCORDIA_ENCODING);
        EXPECT(concordia_es256_verify_object(U(sdk_msg), strlen(sdk_msg), pk, 64), CONCORDIA_ENCODING);
        EXPECT(concordia_es256_verify_object(U(sdk_msg), strlen(sdk_msg), NULL, 65), CONCORDIA_NULL_ARGUMENT);
        EXPECT(concordia_es256_public_key_from_b64(S("AAAA"), off, sizeof off, &n), CONCORDIA_ENCODING);
    }
    EXPECT(concordia_es256_verify_object(U("{\"a\":1}"), 7, pk, 65), CONCORDIA_SCHEMA);

    /* Scalars: zero and wrong lengths refused; generated keys differ and work. */
    memset(d, 0, sizeof d);
    EXPECT(concordia_es256_keypair_from_scalar(d, 32, &gen), CONCORDIA_INVALID_ARGUMENT);
    CHECK(gen == NULL);
    EXPECT(concordia_es256_keypair_from_scalar(d, 31, &gen), CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_es256_keypair_generate(&gen), CONCORDIA_OK);
    EXPECT(concordia_es256_keypair_public_key(gen, out2, sizeof out2, &n), CONCORDIA_OK);
    CHECK(n == 65 && memcmp(out2, pk, 65) != 0);
    EXPECT(concordia_es256_sign_object(gen, U("{}"), 2, out, sizeof out, &m), CONCORDIA_OK);
    EXPECT(concordia_es256_verify_object(out, m, out2, 65), CONCORDIA_OK);
    EXPECT(concordia_es256_verify_object(out, m, pk, 65), CONCORDIA_SIGNATURE);
    EXPECT(concordia_es256_sign_object(NULL, U("{}"), 2, out, sizeof out, &m), CONCORDIA_NULL_ARGUMENT);
    concordia_es256_keypair_free(gen);
    concordia_es256_keypair_free(kp);
    concordia_es256_keypair_free(NULL);
}

int main(void) {
    test_version_and_codes();
    test_canonicalize_and_hash();
    test_keys();
    test_es256();
    test_sign_verify();
    test_negotiation();
    test_profiles();
    test_aip_replay_window();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
