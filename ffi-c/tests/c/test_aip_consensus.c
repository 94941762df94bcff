/*
 * C tests of the Consensus (concordia_consensus_*) and AIP (concordia_aip_*) exports of
 * libconcordia: every export, its success path and its error paths (NULL arguments,
 * size queries, malformed input, protocol rejections).
 *
 * Built with gcc -std=c99 -Wall -Wextra -Werror -pedantic; run plain, under valgrind and
 * with -fsanitize=address,undefined (tools/ci/ffi-c.sh). Prints "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "concordia.h"

#include "harness.h"


/* The text of a span of an input. */
static int span_eq(const char *input, concordia_span s, const char *text) {
    return eq(U(input) + s.offset, s.len, text);
}

/* Whether `needle` occurs in the `len` bytes at `hay` (C99 has no memmem). */
static int contains(const void *hay, size_t len, const char *needle) {
    size_t k = strlen(needle), i;
    for (i = 0; i + k <= len; i++) {
        if (memcmp((const uint8_t *)hay + i, needle, k) == 0) {
            return 1;
        }
    }
    return 0;
}

static int near(double a, double b) {
    return fabs(a - b) < 1e-12;
}

/* ---- Consensus ------------------------------------------------------------------- */

#define REV_HEX "d3626ac30a87e6f7a6428233b3c68299976865fa5508e4267c5415c76af7a772"
#define MD_HEX "14d41f966c61c434d5cad639ff71cad48c953f7387bf17d42434c86cd93c726d"

static void test_consensus_digests(void) {
    const char *rev = "{\"b\": 1, \"a\": 2}";
    uint8_t buf[128];
    size_t n = 9;

    EXPECT(concordia_consensus_revision_digest(U(rev), strlen(rev), NULL, 0, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == CONCORDIA_CONSENSUS_DIGEST_HEX_LEN);
    EXPECT(concordia_consensus_revision_digest(U(rev), strlen(rev), buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(eq(buf, n, REV_HEX));
    EXPECT(concordia_consensus_revision_digest(U("{\"a\":"), 5, buf, sizeof buf, &n), CONCORDIA_JSON_UNEXPECTED_END);
    CHECK(n == 0);
    EXPECT(concordia_consensus_revision_digest(NULL, 3, buf, sizeof buf, &n), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_consensus_revision_digest(U(rev), strlen(rev), buf, sizeof buf, NULL), CONCORDIA_NULL_ARGUMENT);

    EXPECT(concordia_consensus_verify_revision(U(rev), strlen(rev), S(REV_HEX)), CONCORDIA_OK);
    EXPECT(concordia_consensus_verify_revision(U(rev), strlen(rev), S("sha256:" REV_HEX)), CONCORDIA_OK);
    EXPECT(concordia_consensus_verify_revision(U(rev), strlen(rev), S(MD_HEX)), CONCORDIA_DIGEST);
    EXPECT(concordia_consensus_verify_revision(U(rev), strlen(rev), S("xyz")), CONCORDIA_ENCODING);

    EXPECT(concordia_consensus_markdown_digest(U("# Agreement\n"), 12, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(eq(buf, n, MD_HEX));
    EXPECT(concordia_consensus_markdown_digest(U("# Agreement\n"), 12, buf, 10, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == 64);
    EXPECT(concordia_consensus_verify_markdown(U("# Agreement\n"), 12, S(MD_HEX)), CONCORDIA_OK);
    EXPECT(concordia_consensus_verify_markdown(U("# Agreement \n"), 13, S(MD_HEX)), CONCORDIA_DIGEST);
    EXPECT(concordia_consensus_verify_markdown(U("x"), 1, NONE), CONCORDIA_ENCODING);
}

#define INV_ID "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e6f"
#define INV_HREF "https://consensus.md/api/v1/agent/invitations/" INV_ID "/exchange"
#define EMAIL(invite)                                                                                     \
    "Hello agent,\r\n\r\n---BEGIN CONSENSUS INVITATION V1---\r\n{\"schema\": "                           \
    "\"https://consensus.md/schemas/invitation-email/v1\", \"invitation_id\": \"" INV_ID "\", "           \
    "\"invite_uri\": \"" invite "\", \"agent_exchange\": {\"method\": \"POST\", \"href\": \"" INV_HREF    \
    "\"}, \"agent_claim\": {\"email_proof\": \"ep_private_proof_123\"}}\r\n"                              \
    "---END CONSENSUS INVITATION V1---\r\n"
#define EMAIL_HREF(href)                                                                                  \
    "---BEGIN CONSENSUS INVITATION V1---\r\n{\"schema\": "                                                \
    "\"https://consensus.md/schemas/invitation-email/v1\", \"invitation_id\": \"" INV_ID "\", "           \
    "\"invite_uri\": \"https://consensus.md/i/" INV_ID "#secret=6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA\", " \
    "\"agent_exchange\": {\"method\": \"POST\", \"href\": \"" href "\"}, "                                  \
    "\"agent_claim\": {\"email_proof\": \"ep_private_proof_123\"}}\r\n---END CONSENSUS INVITATION V1---\r\n"

/* Issue 32 class 12: an exchange URL with a query or fragment (which may carry the secret)
   crosses the boundary redacted. */
static void test_consensus_invitation_redacted(void) {
    const char *q = EMAIL_HREF(INV_HREF "?secret=6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA");
    const char *f = EMAIL_HREF(INV_HREF "#secret=6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA");
    const char *both = EMAIL_HREF(INV_HREF "?a=1#6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA");
    concordia_consensus_invitation info;
    EXPECT(concordia_consensus_invitation_check(U(q), strlen(q), NONE, &info), CONCORDIA_PRIVACY);
    CHECK(info.no_query == 0 && eq(info.exchange_href, info.exchange_href_len, INV_HREF "?<redacted>"));
    CHECK(!contains(info.exchange_href, sizeof info.exchange_href, "6_asp1"));
    EXPECT(concordia_consensus_invitation_check(U(f), strlen(f), NONE, &info), CONCORDIA_PRIVACY);
    CHECK(eq(info.exchange_href, info.exchange_href_len, INV_HREF "#<redacted>"));
    EXPECT(concordia_consensus_invitation_check(U(both), strlen(both), NONE, &info), CONCORDIA_PRIVACY);
    CHECK(eq(info.exchange_href, info.exchange_href_len, INV_HREF "?<redacted>#<redacted>"));
    CHECK(!contains(info.exchange_href, sizeof info.exchange_href, "6_asp1"));
}

static void test_consensus_invitation(void) {
    const char *good = EMAIL("https://consensus.md/i/" INV_ID "#secret=6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA");
    const char *query = EMAIL("https://consensus.md/i/" INV_ID "?x=1#secret=6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA");
    concordia_consensus_invitation info;

    EXPECT(concordia_consensus_invitation_check(U(good), strlen(good), NONE, &info), CONCORDIA_OK);
    CHECK(info.valid == 1 && info.https == 1 && info.origin == 1 && info.no_query == 1 && info.uuids == 1 &&
          info.secret == 1);
    CHECK(eq(info.invitation_id, sizeof info.invitation_id, INV_ID));
    CHECK(eq(info.exchange_href, info.exchange_href_len, INV_HREF));
    EXPECT(concordia_consensus_invitation_check(U(good), strlen(good), S("https://consensus.md"), &info), CONCORDIA_OK);
    /* the secret never crosses the boundary */
    CHECK(!contains(info.exchange_href, sizeof info.exchange_href, "6_asp1"));

    /* a failed check: the summary is filled, the code is the first failure's */
    EXPECT(concordia_consensus_invitation_check(U(query), strlen(query), NONE, &info), CONCORDIA_PRIVACY);
    CHECK(info.valid == 0 && info.no_query == 0 && info.https == 1);
    EXPECT(concordia_consensus_invitation_check(U(good), strlen(good), S("https://example.org"), &info),
           CONCORDIA_BINDING);
    CHECK(info.origin == 0 && info.valid == 0);
    EXPECT(concordia_consensus_invitation_check(U("no block here"), 13, NONE, &info), CONCORDIA_SCHEMA);
    CHECK(info.exchange_href_len == 0);
    EXPECT(concordia_consensus_invitation_check(U(good), strlen(good), S("ftp://x"), &info),
           CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_consensus_invitation_check(U(good), strlen(good), NONE, NULL), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_consensus_invitation_check(NULL, 0, NONE, &info), CONCORDIA_NULL_ARGUMENT);
}

static void test_consensus_commands(void) {
    uint8_t wire[512];
    size_t n = 0;
    concordia_consensus_command info, parsed;

    EXPECT(concordia_consensus_command_build(CONCORDIA_CONSENSUS_AGREE, NONE, 1, S(MD_HEX), &info, NULL, 0, &n),
           CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n > 0 && n < sizeof wire);
    EXPECT(concordia_consensus_command_build(CONCORDIA_CONSENSUS_AGREE, NONE, 1, S("sha256:" MD_HEX), &info, wire,
                                             sizeof wire, &n),
           CONCORDIA_OK);
    CHECK(eq(wire, n, "{\"action\":\"agree\",\"body\":\"\",\"digest\":\"" MD_HEX "\",\"revision\":1}"));
    CHECK(info.action == CONCORDIA_CONSENSUS_AGREE && info.revision == 1);
    CHECK(memcmp(info.digest, MD_HEX, 64) == 0);
    CHECK(memcmp(info.idempotency_key, "cns1:", 5) == 0);

    /* parse gives back the same command and key */
    EXPECT(concordia_consensus_command_parse(wire, n, &parsed), CONCORDIA_OK);
    CHECK(parsed.action == info.action && parsed.revision == 1);
    CHECK(memcmp(parsed.idempotency_key, info.idempotency_key, CONCORDIA_CONSENSUS_IDEMPOTENCY_KEY_LEN) == 0);

    /* a different command has a different key; info may be NULL */
    EXPECT(concordia_consensus_command_build(CONCORDIA_CONSENSUS_COMMENT, S("Looks good."), 1, S(MD_HEX), &parsed,
                                             wire, sizeof wire, &n),
           CONCORDIA_OK);
    CHECK(memcmp(parsed.idempotency_key, info.idempotency_key, CONCORDIA_CONSENSUS_IDEMPOTENCY_KEY_LEN) != 0);
    EXPECT(concordia_consensus_command_build(CONCORDIA_CONSENSUS_QUESTION, S("Why?"), 2, S(MD_HEX), NULL, wire,
                                             sizeof wire, &n),
           CONCORDIA_OK);

    EXPECT(concordia_consensus_command_build(CONCORDIA_CONSENSUS_AGREE, S("yes"), 1, S(MD_HEX), &info, wire,
                                             sizeof wire, &n),
           CONCORDIA_SCHEMA);
    CHECK(n == 0);
    EXPECT(concordia_consensus_command_build(CONCORDIA_CONSENSUS_COMMENT, NONE, 1, S(MD_HEX), NULL, wire, sizeof wire,
                                             &n),
           CONCORDIA_SCHEMA);
    EXPECT(concordia_consensus_command_build(CONCORDIA_CONSENSUS_AGREE, NONE, 0, S(MD_HEX), NULL, wire, sizeof wire,
                                             &n),
           CONCORDIA_SCHEMA);
    EXPECT(concordia_consensus_command_build(99, NONE, 1, S(MD_HEX), NULL, wire, sizeof wire, &n),
           CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_consensus_command_build(CONCORDIA_CONSENSUS_AGREE, NONE, 1, S("abc"), NULL, wire, sizeof wire,
                                             &n),
           CONCORDIA_ENCODING);
    EXPECT(concordia_consensus_command_build(CONCORDIA_CONSENSUS_AGREE, NONE, 1, S(MD_HEX), NULL, wire, sizeof wire,
                                             NULL),
           CONCORDIA_NULL_ARGUMENT);

    EXPECT(concordia_consensus_command_parse(U("{\"action\":\"agree\"}"), 18, &parsed), CONCORDIA_SCHEMA);
    EXPECT(concordia_consensus_command_parse(U("{"), 1, &parsed), CONCORDIA_JSON_UNEXPECTED_END);
    EXPECT(concordia_consensus_command_parse(wire, n, NULL), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_consensus_command_parse(NULL, 0, &parsed), CONCORDIA_NULL_ARGUMENT);
}

static void command(uint32_t action, const char *body, uint8_t *wire, size_t cap, size_t *n) {
    EXPECT(concordia_consensus_command_build(action, S(body), 1, S(MD_HEX), NULL, wire, cap, n), CONCORDIA_OK);
}

static void test_consensus_room(void) {
    const int64_t deadline = 1800000000;
    concordia_consensus_participant roster[2];
    concordia_consensus_room *room = NULL;
    concordia_consensus_applied a;
    concordia_consensus_outcome o;
    uint8_t wire[256], word[32];
    size_t n = 0;

    roster[0].id = S("alice");
    roster[0].kind = CONCORDIA_CONSENSUS_HUMAN;
    roster[1].id = S("bot");
    roster[1].kind = CONCORDIA_CONSENSUS_AGENT;

    /* roster checks */
    EXPECT(concordia_consensus_room_new(1, S(MD_HEX), deadline, roster, 1, &room), CONCORDIA_SCHEMA);
    CHECK(room == NULL);
    roster[0].kind = CONCORDIA_CONSENSUS_AGENT;
    EXPECT(concordia_consensus_room_new(1, S(MD_HEX), deadline, roster, 2, &room), CONCORDIA_SCHEMA);
    roster[0].kind = 7;
    EXPECT(concordia_consensus_room_new(1, S(MD_HEX), deadline, roster, 2, &room), CONCORDIA_INVALID_ARGUMENT);
    roster[0].kind = CONCORDIA_CONSENSUS_HUMAN;
    EXPECT(concordia_consensus_room_new(1, S("zz"), deadline, roster, 2, &room), CONCORDIA_ENCODING);
    EXPECT(concordia_consensus_room_new(1, S(MD_HEX), deadline, NULL, 2, &room), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_consensus_room_new(1, S(MD_HEX), deadline, roster, 2, NULL), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_consensus_room_new(1, S(MD_HEX), deadline, roster, 2, &room), CONCORDIA_OK);
    CHECK(room != NULL);

    EXPECT(concordia_consensus_room_outcome(room, deadline - 10, &o), CONCORDIA_OK);
    CHECK(o == CONCORDIA_CONSENSUS_PENDING);

    /* a comment, then its exact replay (200), then the key reused for other bytes (409) */
    command(CONCORDIA_CONSENSUS_COMMENT, "Fine by me.", wire, sizeof wire, &n);
    EXPECT(concordia_consensus_room_apply(room, S("bot"), wire, n, NONE, deadline - 100, &a), CONCORDIA_OK);
    CHECK(a.status == 201 && a.event == 0 && a.outcome == CONCORDIA_CONSENSUS_PENDING);
    EXPECT(concordia_consensus_room_apply(room, S("bot"), wire, n, NONE, deadline - 99, &a), CONCORDIA_OK);
    CHECK(a.status == 200 && a.event == 0);
    EXPECT(concordia_consensus_room_apply(room, S("bot"), wire, n, S("my-key-0001"), deadline - 98, &a), CONCORDIA_OK);
    CHECK(a.status == 201 && a.event == 1);
    command(CONCORDIA_CONSENSUS_COMMENT, "Other text.", wire, sizeof wire, &n);
    EXPECT(concordia_consensus_room_apply(room, S("bot"), wire, n, S("my-key-0001"), deadline - 97, &a),
           CONCORDIA_BINDING);
    CHECK(a.status == 409);
    /* refusals: malformed key (400), unknown participant (404), malformed command */
    EXPECT(concordia_consensus_room_apply(room, S("bot"), wire, n, S("bad key!"), deadline - 97, &a),
           CONCORDIA_SCHEMA);
    CHECK(a.status == 400);
    EXPECT(concordia_consensus_room_apply(room, S("mallory"), wire, n, NONE, deadline - 97, &a),
           CONCORDIA_UNKNOWN_KEY);
    CHECK(a.status == 404);
    EXPECT(concordia_consensus_room_apply(room, S("bot"), U("{}"), 2, NONE, deadline - 97, &a), CONCORDIA_SCHEMA);
    CHECK(a.status == 400);
    /* a stale digest */
    EXPECT(concordia_consensus_command_build(CONCORDIA_CONSENSUS_AGREE, NONE, 1, S(REV_HEX), NULL, wire, sizeof wire,
                                             &n),
           CONCORDIA_OK);
    EXPECT(concordia_consensus_room_apply(room, S("bot"), wire, n, NONE, deadline - 96, &a), CONCORDIA_DIGEST);
    CHECK(a.status == 409);

    /* both agree: reached; a second decision is refused */
    command(CONCORDIA_CONSENSUS_AGREE, "", wire, sizeof wire, &n);
    EXPECT(concordia_consensus_room_apply(room, S("bot"), wire, n, NONE, deadline - 50, &a), CONCORDIA_OK);
    CHECK(a.status == 201 && a.outcome == CONCORDIA_CONSENSUS_PENDING);
    EXPECT(concordia_consensus_room_apply(room, S("alice"), wire, n, NONE, deadline - 40, &a), CONCORDIA_OK);
    CHECK(a.status == 201 && a.outcome == CONCORDIA_CONSENSUS_REACHED);
    command(CONCORDIA_CONSENSUS_DISAGREE, "", wire, sizeof wire, &n);
    EXPECT(concordia_consensus_room_apply(room, S("alice"), wire, n, NONE, deadline - 30, &a), CONCORDIA_TRANSITION);
    CHECK(a.status == 409 && a.outcome == CONCORDIA_CONSENSUS_REACHED);
    EXPECT(concordia_consensus_room_outcome(room, deadline + 10, &o), CONCORDIA_OK);
    CHECK(o == CONCORDIA_CONSENSUS_REACHED);
    EXPECT(concordia_consensus_room_apply(NULL, S("alice"), wire, n, NONE, deadline, &a), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_consensus_room_apply(room, S("alice"), wire, n, NONE, deadline, NULL), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_consensus_room_outcome(room, deadline, NULL), CONCORDIA_NULL_ARGUMENT);
    concordia_consensus_room_free(room);

    /* expiry: a pending room reads as expired at its deadline, and refuses commands */
    EXPECT(concordia_consensus_room_new(1, S(MD_HEX), deadline, roster, 2, &room), CONCORDIA_OK);
    EXPECT(concordia_consensus_room_outcome(room, deadline, &o), CONCORDIA_OK);
    CHECK(o == CONCORDIA_CONSENSUS_EXPIRED);
    command(CONCORDIA_CONSENSUS_ABSTAIN, "", wire, sizeof wire, &n);
    EXPECT(concordia_consensus_room_apply(room, S("bot"), wire, n, NONE, deadline + 1, &a), CONCORDIA_TEMPORAL);
    CHECK(a.status == 409 && a.outcome == CONCORDIA_CONSENSUS_EXPIRED);
    concordia_consensus_room_free(room);
    /* abstain: no consensus */
    EXPECT(concordia_consensus_room_new(1, S(MD_HEX), deadline, roster, 2, &room), CONCORDIA_OK);
    EXPECT(concordia_consensus_room_apply(room, S("bot"), wire, n, NONE, deadline - 1, &a), CONCORDIA_OK);
    CHECK(a.outcome == CONCORDIA_CONSENSUS_NO_CONSENSUS);
    concordia_consensus_room_free(room);
    concordia_consensus_room_free(NULL);

    EXPECT(concordia_consensus_outcome_name(CONCORDIA_CONSENSUS_NO_CONSENSUS, word, sizeof word, &n), CONCORDIA_OK);
    CHECK(eq(word, n, "no_consensus"));
    EXPECT(concordia_consensus_outcome_name(CONCORDIA_CONSENSUS_REACHED, NULL, 0, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == 7);
    EXPECT(concordia_consensus_outcome_name(5, word, sizeof word, &n), CONCORDIA_INVALID_ARGUMENT);
}

static void test_consensus_artifact(void) {
    const char *body = "{\"hello\": \"world\"}\n";
    const char *field = "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:";
    const char *hex = "44aff4ab2d7c3250525675a08f0cfa9591168cffe51791c5f5bbc417c15a6c38";

    EXPECT(concordia_consensus_verify_artifact(U(body), strlen(body), S(field), S(hex), CONCORDIA_CONSENSUS_REACHED),
           CONCORDIA_OK);
    EXPECT(concordia_consensus_verify_artifact(U(body), strlen(body) - 1, S(field), S(hex),
                                               CONCORDIA_CONSENSUS_REACHED),
           CONCORDIA_DIGEST);
    EXPECT(concordia_consensus_verify_artifact(U(body), strlen(body), S(field), S(MD_HEX),
                                               CONCORDIA_CONSENSUS_REACHED),
           CONCORDIA_DIGEST);
    EXPECT(concordia_consensus_verify_artifact(U(body), strlen(body), S(field), S(hex), CONCORDIA_CONSENSUS_PENDING),
           CONCORDIA_TRANSITION);
    EXPECT(concordia_consensus_verify_artifact(U(body), strlen(body), S("sha-256=:x:"), S(hex),
                                               CONCORDIA_CONSENSUS_REACHED),
           CONCORDIA_ENCODING);
    EXPECT(concordia_consensus_verify_artifact(U(body), strlen(body), S(field), S(hex), 17),
           CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_consensus_verify_artifact(NULL, 4, S(field), S(hex), CONCORDIA_CONSENSUS_REACHED),
           CONCORDIA_NULL_ARGUMENT);
}

/* ---- AIP ------------------------------------------------------------------------- */

static void test_aip_handles(void) {
    uint8_t buf[512];
    size_t n = 0;
    static const struct {
        uint32_t form;
        const char *want;
    } forms[] = {
        {CONCORDIA_AIP_HANDLE, "alice#aigentix.org"},
        {CONCORDIA_AIP_HANDLE_URL_FORM, "alice%23aigentix.org"},
        {CONCORDIA_AIP_HANDLE_AT_FORM, "@alice@aigentix.org"},
        {CONCORDIA_AIP_HANDLE_DID, "did:aip:aigentix.org:alice"},
        {CONCORDIA_AIP_HANDLE_NAME, "alice"},
        {CONCORDIA_AIP_HANDLE_DOMAIN, "aigentix.org"},
    };
    static const char *spellings[] = {"alice#aigentix.org", "alice%23aigentix.org", "@alice@aigentix.org",
                                      "did:aip:aigentix.org:alice"};
    size_t i, j;

    for (i = 0; i < sizeof spellings / sizeof *spellings; i++) {
        for (j = 0; j < sizeof forms / sizeof *forms; j++) {
            EXPECT(concordia_aip_handle(S(spellings[i]), forms[j].form, buf, sizeof buf, &n), CONCORDIA_OK);
            CHECK(eq(buf, n, forms[j].want));
        }
    }
    EXPECT(concordia_aip_handle_of(S("alice"), S("aigentix.org"), CONCORDIA_AIP_HANDLE_DID, buf, sizeof buf, &n),
           CONCORDIA_OK);
    CHECK(eq(buf, n, "did:aip:aigentix.org:alice"));
    EXPECT(concordia_aip_handle_of(S("alice"), S("aigentix.org"), CONCORDIA_AIP_HANDLE, NULL, 0, &n),
           CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == 18);
    EXPECT(concordia_aip_handle_of(S("Alice!"), S("aigentix.org"), CONCORDIA_AIP_HANDLE, buf, sizeof buf, &n),
           CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_aip_handle(S("no handle"), CONCORDIA_AIP_HANDLE, buf, sizeof buf, &n), CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_aip_handle(S("alice#aigentix.org"), 6, buf, sizeof buf, &n), CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_aip_handle(S("alice#aigentix.org"), CONCORDIA_AIP_HANDLE, buf, sizeof buf, NULL),
           CONCORDIA_NULL_ARGUMENT);
}

static const uint8_t ED_A[32] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
static const uint8_t X_A[32] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
                                2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
static const uint8_t ED_B[32] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
                                 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
static const uint8_t X_B[32] = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
                                4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};

#define ALICE "did:aip:aigentix.org:alice"
#define BOB "did:aip:aigentix.org:bob"

/* The DID Document of a key pair, NUL-terminated, malloc'ed. */
static char *document(const concordia_aip_keypair *kp, const char *did, uint32_t mode, const char *endpoint) {
    size_t n = 0;
    char *doc;
    EXPECT(concordia_aip_keypair_did_document(kp, S(did), mode, S(endpoint), NULL, 0, &n), CONCORDIA_BUFFER_TOO_SMALL);
    doc = malloc(n + 1);
    EXPECT(concordia_aip_keypair_did_document(kp, S(did), mode, S(endpoint), (uint8_t *)doc, n, &n), CONCORDIA_OK);
    doc[n] = '\0';
    return doc;
}

static void test_aip_keys_and_documents(void) {
    concordia_aip_keypair *kp = NULL, *gen = NULL;
    concordia_keypair *signing = NULL;
    concordia_aip_did_document info;
    concordia_aip_route route;
    uint8_t buf[256], pk[32], did_key[128];
    size_t n = 0, pk_n = 0, did_key_n = 0;
    char *doc, *relay_doc;

    EXPECT(concordia_aip_keypair_from_seeds(ED_A, 32, X_A, 31, &kp), CONCORDIA_INVALID_ARGUMENT);
    CHECK(kp == NULL);
    EXPECT(concordia_aip_keypair_from_seeds(NULL, 0, X_A, 32, &kp), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_aip_keypair_from_seeds(ED_A, 32, X_A, 32, NULL), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_aip_keypair_from_seeds(ED_A, 32, X_A, 32, &kp), CONCORDIA_OK);

    /* every part; the secrets round-trip */
    EXPECT(concordia_aip_keypair_export(kp, CONCORDIA_AIP_ED25519_SEED, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(n == 32 && memcmp(buf, ED_A, 32) == 0);
    EXPECT(concordia_aip_keypair_export(kp, CONCORDIA_AIP_X25519_SECRET, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(n == 32 && memcmp(buf, X_A, 32) == 0);
    EXPECT(concordia_aip_keypair_export(kp, CONCORDIA_AIP_ED25519_PUBLIC_KEY, pk, sizeof pk, &pk_n), CONCORDIA_OK);
    CHECK(pk_n == 32);
    EXPECT(concordia_aip_keypair_export(kp, CONCORDIA_AIP_X25519_PUBLIC_KEY, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(n == 32);
    EXPECT(concordia_aip_keypair_export(kp, CONCORDIA_AIP_ED25519_MULTIBASE, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(n > 4 && memcmp(buf, "z6Mk", 4) == 0);
    EXPECT(concordia_aip_keypair_export(kp, CONCORDIA_AIP_X25519_MULTIBASE, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(n > 4 && memcmp(buf, "z6LS", 4) == 0);
    EXPECT(concordia_aip_keypair_export(kp, CONCORDIA_AIP_DID_KEY, did_key, sizeof did_key, &did_key_n), CONCORDIA_OK);
    CHECK(did_key_n > 12 && memcmp(did_key, "did:key:z6Mk", 12) == 0);
    EXPECT(concordia_aip_keypair_export(kp, CONCORDIA_AIP_DID_KEY, NULL, 0, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == did_key_n);
    EXPECT(concordia_aip_keypair_export(kp, 7, buf, sizeof buf, &n), CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_aip_keypair_export(NULL, 0, buf, sizeof buf, &n), CONCORDIA_NULL_ARGUMENT);

    /* the Ed25519 half as an ordinary key pair, and its did:key */
    EXPECT(concordia_aip_keypair_signing_key(kp, &signing), CONCORDIA_OK);
    EXPECT(concordia_keypair_public_key(signing, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(n == 32 && memcmp(buf, pk, 32) == 0);
    EXPECT(concordia_aip_did_key(signing, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(n == did_key_n && memcmp(buf, did_key, n) == 0);
    EXPECT(concordia_aip_did_key(NULL, buf, sizeof buf, &n), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_aip_keypair_signing_key(kp, NULL), CONCORDIA_NULL_ARGUMENT);
    concordia_keypair_free(signing);

    /* a generated key pair differs */
    EXPECT(concordia_aip_keypair_generate(&gen), CONCORDIA_OK);
    EXPECT(concordia_aip_keypair_export(gen, CONCORDIA_AIP_ED25519_PUBLIC_KEY, buf, sizeof buf, &n), CONCORDIA_OK);
    CHECK(n == 32 && memcmp(buf, pk, 32) != 0);
    EXPECT(concordia_aip_keypair_generate(NULL), CONCORDIA_NULL_ARGUMENT);
    concordia_aip_keypair_free(gen);
    concordia_aip_keypair_free(NULL);

    /* a document written and read back */
    doc = document(kp, ALICE, CONCORDIA_AIP_ROUTE_DIRECT, "https://alice.example/aip");
    EXPECT(concordia_aip_did_document_parse(U(doc), strlen(doc), &info), CONCORDIA_OK);
    CHECK(span_eq(doc, info.id, ALICE));
    CHECK(span_eq(doc, info.endpoint, "https://alice.example/aip"));
    CHECK(info.route_mode == CONCORDIA_AIP_ROUTE_DIRECT);
    CHECK(info.signing_key_count == 1 && memcmp(info.signing_keys[0], pk, 32) == 0);
    CHECK(info.agreement_key_count == 1);
    EXPECT(concordia_aip_did_document_parse(U(doc), strlen(doc), NULL), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_aip_did_document_parse(U("{}"), 2, &info), CONCORDIA_SCHEMA);
    EXPECT(concordia_aip_did_document_parse(U("[1,"), 3, &info), CONCORDIA_JSON_UNEXPECTED_END);
    /* issue 32: a verification method without controller, or two with one id (decoded) */
    {
        const char *vm = strstr(doc, "\"verificationMethod\":[{\"controller\":\"");
        char *bad = malloc(strlen(doc) + 256);
        size_t pre, ctl;
        CHECK(vm != NULL && bad != NULL);
        pre = (size_t)(vm - doc) + strlen("\"verificationMethod\":[{");
        ctl = strlen("\"controller\":\"" ALICE "\",");
        memcpy(bad, doc, pre);
        strcpy(bad + pre, doc + pre + ctl);
        EXPECT(concordia_aip_did_document_parse(U(bad), strlen(bad), &info), CONCORDIA_SCHEMA);
        CHECK(strstr(last_detail(), "controller missing") != NULL);
        memcpy(bad, doc, pre);
        strcpy(bad + pre, "\"controller\":\"" ALICE "\",\"id\":\"" ALICE "#\\u006bey-1\",\"type\":\"JsonWebKey\"},{");
        strcat(bad, doc + pre);
        EXPECT(concordia_aip_did_document_parse(U(bad), strlen(bad), &info), CONCORDIA_SCHEMA);
        CHECK(strstr(last_detail(), "ids must be unique") != NULL);
        free(bad);
    }

    EXPECT(concordia_aip_select_route(U(doc), strlen(doc), 1, &route), CONCORDIA_OK);
    CHECK(route.mode == CONCORDIA_AIP_ROUTE_DIRECT && route.has_endpoint == 1);
    CHECK(span_eq(doc, route.endpoint, "https://alice.example/aip"));
    EXPECT(concordia_aip_select_route(U(doc), strlen(doc), 0, &route), CONCORDIA_OK);
    CHECK(route.mode == CONCORDIA_AIP_ROUTE_RELAY && route.has_endpoint == 0);
    relay_doc = document(kp, ALICE, CONCORDIA_AIP_ROUTE_RELAY, "wss://hub.aigentix.org/relay/alice");
    EXPECT(concordia_aip_select_route(U(relay_doc), strlen(relay_doc), 1, &route), CONCORDIA_OK);
    CHECK(route.mode == CONCORDIA_AIP_ROUTE_RELAY && route.has_endpoint == 1);
    CHECK(span_eq(relay_doc, route.endpoint, "wss://hub.aigentix.org/relay/alice"));
    EXPECT(concordia_aip_select_route(U(doc), strlen(doc), 1, NULL), CONCORDIA_NULL_ARGUMENT);

    EXPECT(concordia_aip_keypair_did_document(kp, S("did:web:x"), 0, S("https://x"), buf, sizeof buf, &n),
           CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_aip_keypair_did_document(kp, S(ALICE), 2, S("https://x"), buf, sizeof buf, &n),
           CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_aip_keypair_did_document(kp, S(ALICE), 0, S("ftp://x"), buf, sizeof buf, &n), CONCORDIA_SCHEMA);
    free(doc);
    free(relay_doc);
    concordia_aip_keypair_free(kp);
}

static void test_aip_envelopes(void) {
    concordia_aip_keypair *alice = NULL, *bob = NULL;
    concordia_aip_seal_header h;
    concordia_aip_header header;
    concordia_aip_open_checks checks;
    char *alice_doc, *bob_doc, *env;
    uint8_t id[CONCORDIA_AIP_MESSAGE_ID_LEN], body[256];
    size_t n = 0, id_n = 0, env_n = 0;
    const char *msg = "{\"qty\": 2, \"item\": \"camera\"}";
    const int64_t created = 1778423100; /* 2026-05-10T14:25:00Z */

    EXPECT(concordia_aip_keypair_from_seeds(ED_A, 32, X_A, 32, &alice), CONCORDIA_OK);
    EXPECT(concordia_aip_keypair_from_seeds(ED_B, 32, X_B, 32, &bob), CONCORDIA_OK);
    alice_doc = document(alice, ALICE, CONCORDIA_AIP_ROUTE_DIRECT, "https://alice.example/aip");
    bob_doc = document(bob, BOB, CONCORDIA_AIP_ROUTE_RELAY, "wss://hub.aigentix.org/relay/bob");

    EXPECT(concordia_aip_new_message_id(NULL, 0, &id_n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(id_n == 36);
    EXPECT(concordia_aip_new_message_id(id, sizeof id, &id_n), CONCORDIA_OK);
    CHECK(id_n == 36 && id[8] == '-' && id[14] == '4');

    h.id.ptr = id;
    h.id.len = id_n;
    h.from = S(ALICE);
    h.message_type = S("aip.commerce.offer.request");
    h.created_at = S("2026-05-10T14:25:00Z");

    /* alice seals to bob: size query, then the envelope */
    EXPECT(concordia_aip_seal(alice, U(bob_doc), strlen(bob_doc), &h, U(msg), strlen(msg), NULL, 0, &env_n),
           CONCORDIA_BUFFER_TOO_SMALL);
    env = malloc(env_n);
    EXPECT(concordia_aip_seal(alice, U(bob_doc), strlen(bob_doc), &h, U(msg), strlen(msg), (uint8_t *)env, env_n,
                              &env_n),
           CONCORDIA_OK);
    EXPECT(concordia_aip_seal(alice, U(bob_doc), strlen(bob_doc), &h, U(msg), strlen(msg), (uint8_t *)env, 10, &n),
           CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == env_n);
    h.message_type = S("Bad Type");
    EXPECT(concordia_aip_seal(alice, U(bob_doc), strlen(bob_doc), &h, U(msg), strlen(msg), NULL, 0, &n),
           CONCORDIA_SCHEMA);
    h.message_type = S("aip.commerce.offer.request");
    EXPECT(concordia_aip_seal(alice, U(bob_doc), strlen(bob_doc), &h, U("{"), 1, NULL, 0, &n),
           CONCORDIA_JSON_UNEXPECTED_END);
    EXPECT(concordia_aip_seal(alice, U(bob_doc), strlen(bob_doc), NULL, U(msg), strlen(msg), NULL, 0, &n),
           CONCORDIA_NULL_ARGUMENT);

    /* the header, as spans of the envelope text */
    EXPECT(concordia_aip_envelope_parse(U(env), env_n, &header), CONCORDIA_OK);
    CHECK(header.id.len == 36 && memcmp(env + header.id.offset, id, 36) == 0);
    CHECK(eq(U(env) + header.from.offset, header.from.len, ALICE));
    CHECK(eq(U(env) + header.to.offset, header.to.len, BOB));
    CHECK(eq(U(env) + header.message_type.offset, header.message_type.len, "aip.commerce.offer.request"));
    CHECK(eq(U(env) + header.created_at.offset, header.created_at.len, "2026-05-10T14:25:00Z"));
    CHECK(header.created_at_unix == created);
    EXPECT(concordia_aip_envelope_parse(U("{\"id\":1}"), 8, &header), CONCORDIA_SCHEMA);
    EXPECT(concordia_aip_envelope_parse(U(env), env_n, NULL), CONCORDIA_NULL_ARGUMENT);

    EXPECT(concordia_aip_verify_envelope(U(alice_doc), strlen(alice_doc), U(env), env_n, &header), CONCORDIA_OK);
    EXPECT(concordia_aip_verify_envelope(U(alice_doc), strlen(alice_doc), U(env), env_n, NULL), CONCORDIA_OK);
    EXPECT(concordia_aip_verify_envelope(U(bob_doc), strlen(bob_doc), U(env), env_n, NULL), CONCORDIA_BINDING);
    EXPECT(concordia_aip_verify_envelope(NULL, 0, U(env), env_n, NULL), CONCORDIA_NULL_ARGUMENT);

    /* bob opens it: size query, then with the addressee and freshness checks */
    memset(&checks, 0, sizeof checks);
    checks.recipient_did = S(BOB);
    checks.freshness = CONCORDIA_AIP_FRESHNESS_AT;
    checks.now = created + 60;
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, NULL, 0, &n),
           CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == strlen("{\"item\":\"camera\",\"qty\":2}"));
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, &header, body,
                              sizeof body, &n),
           CONCORDIA_OK);
    CHECK(eq(body, n, "{\"item\":\"camera\",\"qty\":2}"));
    CHECK(header.created_at_unix == created);
    CHECK(eq(U(env) + header.to.offset, header.to.len, BOB));
    /* issue 32: NULL checks are the safe defaults: the addressee is required (so a DID must
       be given) and freshness is checked at the clock (this envelope is from May 2026) */
    EXPECT(concordia_aip_open(bob, NULL, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body, &n),
           CONCORDIA_INVALID_ARGUMENT);
    checks.freshness = CONCORDIA_AIP_FRESHNESS_CLOCK;
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_TEMPORAL);
    checks.freshness = CONCORDIA_AIP_FRESHNESS_UNCHECKED;
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_OK);
    checks.freshness = 7;
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_INVALID_ARGUMENT);
    checks.freshness = CONCORDIA_AIP_FRESHNESS_AT;
    /* the bounds of freshness: 600 s old and 300 s ahead pass, one more second fails */
    checks.now = created + 600;
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_OK);
    checks.now = created + 601;
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_TEMPORAL);
    CHECK(n == 0);
    checks.now = created - 300;
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_OK);
    checks.now = created - 301;
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_TEMPORAL);
    /* addressed to another agent: refused before decryption */
    checks.now = created;
    checks.recipient_did = S(ALICE);
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_BINDING);
    checks.recipient_did = S("not a did");
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_INVALID_ARGUMENT);
    /* a replay window: the second delivery is CONCORDIA_AIP_REPLAY; a buffer shorter than
       the envelope is refused before anything is remembered */
    {
        concordia_aip_replay_window *w = NULL;
        EXPECT(concordia_aip_replay_window_new(16, &w), CONCORDIA_OK);
        checks.recipient_did = S(BOB);
        checks.now = created + 5;
        checks.window = w;
        EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, NULL, 0, &n),
               CONCORDIA_BUFFER_TOO_SMALL);
        CHECK(n == env_n);
        {
            uint8_t *big = malloc(env_n);
            EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, big, env_n,
                                      &n),
                   CONCORDIA_OK);
            CHECK(eq(big, n, "{\"item\":\"camera\",\"qty\":2}"));
            EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, big, env_n,
                                      &n),
                   CONCORDIA_AIP_REPLAY);
            checks.freshness = CONCORDIA_AIP_FRESHNESS_UNCHECKED;
            EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, big, env_n,
                                      &n),
                   CONCORDIA_INVALID_ARGUMENT);
            checks.freshness = CONCORDIA_AIP_FRESHNESS_AT;
            free(big);
        }
        checks.window = NULL;
        concordia_aip_replay_window_free(w);
    }
    /* issue 32: no recipient DID is refused unless the addressee check is skipped by name */
    checks.recipient_did.ptr = NULL;
    checks.recipient_did.len = 0;
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_INVALID_ARGUMENT);
    checks.addressee = CONCORDIA_AIP_ADDRESSEE_UNCHECKED;
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_OK);
    /* the wrong key does not open; a tampered envelope does not verify */
    EXPECT(concordia_aip_open(alice, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_SIGNATURE);
    checks.recipient_did = S(BOB);
    checks.addressee = CONCORDIA_AIP_ADDRESSEE_REQUIRED;
    env[header.message_type.offset] = 'b';
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_SIGNATURE);
    /* issue 32: stale (at the clock) and tampered is a signature failure, not TEMPORAL */
    checks.freshness = CONCORDIA_AIP_FRESHNESS_CLOCK;
    EXPECT(concordia_aip_open(bob, &checks, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_SIGNATURE);
    EXPECT(concordia_aip_open(NULL, NULL, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              &n),
           CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_aip_open(bob, NULL, U(alice_doc), strlen(alice_doc), U(env), env_n, NULL, body, sizeof body,
                              NULL),
           CONCORDIA_NULL_ARGUMENT);

    free(env);
    free(alice_doc);
    free(bob_doc);
    concordia_aip_keypair_free(alice);
    concordia_aip_keypair_free(bob);
}

static void test_aip_credentials(void) {
    concordia_keypair *kp = NULL;
    concordia_aip_vc_options opts;
    concordia_aip_vc_verified v;
    concordia_str anchors[1], revoked[1];
    uint8_t did[128];
    char cred[512], *signed_cred;
    size_t did_n = 0, n = 0;

    EXPECT(concordia_keypair_from_seed(ED_A, 32, &kp), CONCORDIA_OK);
    EXPECT(concordia_aip_did_key(kp, did, sizeof did, &did_n), CONCORDIA_OK);
    snprintf(cred, sizeof cred,
             "{\"@context\": [\"https://www.w3.org/ns/credentials/v2\"], \"id\": \"urn:uuid:c1\", "
             "\"type\": [\"VerifiableCredential\"], \"issuer\": \"%.*s\", \"validFrom\": \"2026-01-01T00:00:00Z\", "
             "\"validUntil\": \"2099-01-01T00:00:00Z\", \"credentialSubject\": {\"id\": \"" BOB "\"}}",
             (int)did_n, (const char *)did);

    EXPECT(concordia_aip_vc_issue(kp, U(cred), strlen(cred), S("2026-01-01T00:00:00Z"), NULL, 0, &n),
           CONCORDIA_BUFFER_TOO_SMALL);
    signed_cred = malloc(n);
    EXPECT(concordia_aip_vc_issue(kp, U(cred), strlen(cred), S("2026-01-01T00:00:00Z"), (uint8_t *)signed_cred, n,
                                  &n),
           CONCORDIA_OK);
    EXPECT(concordia_aip_vc_issue(kp, U(cred), strlen(cred), NONE, NULL, 0, &did_n), CONCORDIA_BUFFER_TOO_SMALL);
    EXPECT(concordia_aip_vc_issue(kp, U("[]"), 2, NONE, NULL, 0, &did_n), CONCORDIA_SCHEMA);
    EXPECT(concordia_aip_vc_issue(NULL, U(cred), strlen(cred), NONE, NULL, 0, &did_n), CONCORDIA_NULL_ARGUMENT);

    /* no options: the proof, the issuer binding and the time at the OS clock */
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, NULL, &v), CONCORDIA_OK);
    CHECK(v.has_subject == 1 && span_eq(signed_cred, v.subject, BOB));
    CHECK(v.issuer.len > 8 && memcmp(signed_cred + v.issuer.offset, "did:key:", 8) == 0);
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, NULL, NULL), CONCORDIA_OK);

    memset(&opts, 0, sizeof opts);
    opts.time = CONCORDIA_AIP_VC_TIME_AT;
    opts.now = 1780000000; /* 2026-05-28 */
    opts.check_anchors = 1;
    anchors[0].ptr = U(signed_cred) + v.issuer.offset;
    anchors[0].len = v.issuer.len;
    opts.anchors = anchors;
    opts.anchor_count = 1;
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, &opts, &v), CONCORDIA_OK);
    opts.now = 4102444801; /* 2100-01-01T00:00:01Z */
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, &opts, &v), CONCORDIA_TEMPORAL);
    opts.time = CONCORDIA_AIP_VC_TIME_UNCHECKED; /* off by name only */
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, &opts, &v), CONCORDIA_OK);
    opts.time = 7;
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, &opts, &v), CONCORDIA_INVALID_ARGUMENT);
    opts.time = CONCORDIA_AIP_VC_TIME_AT;
    opts.now = 1767225299; /* 2025-12-31T23:54:59Z: the proof's created is 301 s ahead */
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, &opts, &v), CONCORDIA_TEMPORAL);
    opts.now = 1780000000;
    anchors[0] = S("did:key:z6MkOther");
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, &opts, &v), CONCORDIA_BINDING);
    opts.anchor_count = 0; /* anchors checked, none trusted */
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, &opts, &v), CONCORDIA_BINDING);
    opts.check_anchors = 0;
    revoked[0] = S("urn:uuid:c1");
    opts.revoked = revoked;
    opts.revoked_count = 1;
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, &opts, &v), CONCORDIA_BINDING);
    opts.revoked = NULL;
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, &opts, &v), CONCORDIA_NULL_ARGUMENT);
    opts.revoked_count = 0;
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, &opts, &v), CONCORDIA_OK);

    /* issue 32: a required domain or challenge that the proof does not carry */
    opts.domain = S("example.org");
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, &opts, &v), CONCORDIA_BINDING);
    opts.domain = NONE;
    opts.challenge = S("n-0S6");
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, &opts, &v), CONCORDIA_BINDING);
    opts.challenge = NONE;

    /* issue 32: the revoked id respelled with a JSON escape (urn:uuid:c1 as urn:uuid:\u0063\u0031) */
    {
        const char *at = strstr(signed_cred, "urn:uuid:c1");
        size_t pre = (size_t)(at - signed_cred) + 9, m = n + 10;
        char *escaped = malloc(m);
        CHECK(at != NULL && escaped != NULL);
        memcpy(escaped, signed_cred, pre);
        memcpy(escaped + pre, "\\u0063\\u0031", 12);
        memcpy(escaped + pre + 12, signed_cred + pre + 2, n - pre - 2);
        EXPECT(concordia_aip_vc_verify(U(escaped), m, NULL, &v), CONCORDIA_OK); /* the proof holds */
        opts.revoked = revoked;
        opts.revoked_count = 1;
        EXPECT(concordia_aip_vc_verify(U(escaped), m, &opts, &v), CONCORDIA_BINDING);
        opts.revoked = NULL;
        opts.revoked_count = 0;
        free(escaped);
    }
    /* an escaped credentialSubject.id is refused, not dropped */
    {
        const char *at = strstr(signed_cred, BOB);
        size_t pre = (size_t)(at - signed_cred), m = n + 5;
        char *escaped = malloc(m);
        CHECK(at != NULL && escaped != NULL);
        memcpy(escaped, signed_cred, pre);
        memcpy(escaped + pre, "\\u0064", 6); /* 'd' of did:aip */
        memcpy(escaped + pre + 6, signed_cred + pre + 1, n - pre - 1);
        EXPECT(concordia_aip_vc_verify(U(escaped), m, NULL, &v), CONCORDIA_SCHEMA);
        free(escaped);
    }

    /* any change breaks the proof */
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, NULL, &v), CONCORDIA_OK);
    signed_cred[v.subject.offset + v.subject.len - 1] = 'c';
    EXPECT(concordia_aip_vc_verify(U(signed_cred), n, NULL, &v), CONCORDIA_SIGNATURE);
    CHECK(v.issuer.len == 0 && v.has_subject == 0);
    EXPECT(concordia_aip_vc_verify(U(cred), strlen(cred), NULL, &v), CONCORDIA_SCHEMA);
    EXPECT(concordia_aip_vc_verify(NULL, 0, NULL, &v), CONCORDIA_NULL_ARGUMENT);

    free(signed_cred);
    concordia_keypair_free(kp);
}

static void test_aip_trust(void) {
    concordia_aip_edge edges[3];
    concordia_str anchors[1];
    uint32_t history[3];
    concordia_aip_candidate c[3];
    concordia_aip_ranked r[3];
    double x = -1;
    size_t n = 0;

    anchors[0] = S("did:key:root");
    edges[0].issuer = S("did:key:root");
    edges[0].subject = S("did:key:a");
    edges[0].revoked = 0;
    edges[1].issuer = S("did:key:a");
    edges[1].subject = S("did:key:b");
    edges[1].revoked = 0;
    edges[2].issuer = S("did:key:root");
    edges[2].subject = S("did:key:c");
    edges[2].revoked = 1;
    EXPECT(concordia_aip_trust_ceiling(S("did:key:root"), edges, 3, anchors, 1, &x), CONCORDIA_OK);
    CHECK(near(x, 1.0));
    EXPECT(concordia_aip_trust_ceiling(S("did:key:a"), edges, 3, anchors, 1, &x), CONCORDIA_OK);
    CHECK(near(x, 0.5));
    EXPECT(concordia_aip_trust_ceiling(S("did:key:b"), edges, 3, anchors, 1, &x), CONCORDIA_OK);
    CHECK(near(x, 0.25));
    EXPECT(concordia_aip_trust_ceiling(S("did:key:c"), edges, 3, anchors, 1, &x), CONCORDIA_OK);
    CHECK(near(x, 0.0));
    EXPECT(concordia_aip_trust_ceiling(S("did:key:a"), NULL, 0, NULL, 0, &x), CONCORDIA_OK);
    CHECK(near(x, 0.0));
    EXPECT(concordia_aip_trust_ceiling(S("did:key:a"), NULL, 3, anchors, 1, &x), CONCORDIA_NULL_ARGUMENT);
    EXPECT(concordia_aip_trust_ceiling(S("did:key:a"), edges, 3, anchors, 1, NULL), CONCORDIA_NULL_ARGUMENT);

    EXPECT(concordia_aip_trust_update(0.0, 1.0, CONCORDIA_AIP_TRUST_SUCCESS, &x), CONCORDIA_OK);
    CHECK(near(x, 0.05));
    EXPECT(concordia_aip_trust_update(0.5, 1.0, CONCORDIA_AIP_TRUST_FAILURE, &x), CONCORDIA_OK);
    CHECK(near(x, 0.25));
    EXPECT(concordia_aip_trust_update(0.5, 1.0, CONCORDIA_AIP_TRUST_REVOCATION, &x), CONCORDIA_OK);
    CHECK(near(x, 0.0));
    EXPECT(concordia_aip_trust_update(0.5, 1.0, 3, &x), CONCORDIA_INVALID_ARGUMENT);

    history[0] = CONCORDIA_AIP_TRUST_SUCCESS;
    history[1] = CONCORDIA_AIP_TRUST_SUCCESS;
    history[2] = CONCORDIA_AIP_TRUST_FAILURE;
    EXPECT(concordia_aip_trust_score(1.0, history, 3, &x), CONCORDIA_OK);
    CHECK(near(x, (0.05 + 0.95 * 0.05) / 2));
    EXPECT(concordia_aip_trust_score(1.0, NULL, 0, &x), CONCORDIA_OK);
    CHECK(near(x, 0.0));
    history[1] = 9;
    EXPECT(concordia_aip_trust_score(1.0, history, 3, &x), CONCORDIA_INVALID_ARGUMENT);

    EXPECT(concordia_aip_rrf(1, 0, &x), CONCORDIA_OK);
    CHECK(near(x, 1.0 / 61));
    EXPECT(concordia_aip_rrf(1, 2, &x), CONCORDIA_OK);
    CHECK(near(x, 1.0 / 61 + 1.0 / 62));
    EXPECT(concordia_aip_rrf(0, 0, &x), CONCORDIA_OK);
    CHECK(near(x, 0.0));
    EXPECT(concordia_aip_final_score(0.5, 1.0, &x), CONCORDIA_OK);
    CHECK(near(x, 0.65));
    EXPECT(concordia_aip_final_score(0.5, 1.5, &x), CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_aip_rrf(1, 1, NULL), CONCORDIA_NULL_ARGUMENT);

    c[0].semantic_rank = 2;
    c[0].fts_rank = 0;
    c[0].trust_score = 0.0;
    c[1].semantic_rank = 1;
    c[1].fts_rank = 1;
    c[1].trust_score = 0.5;
    c[2].semantic_rank = 3;
    c[2].fts_rank = 2;
    c[2].trust_score = 1.0;
    EXPECT(concordia_aip_rank(c, 3, NULL, 0, &n), CONCORDIA_BUFFER_TOO_SMALL);
    CHECK(n == 3);
    EXPECT(concordia_aip_rank(c, 3, r, 3, &n), CONCORDIA_OK);
    /* c[2]: (1/63 + 1/62) * 1.3 beats c[1]: 2/61 * 1.15, which beats c[0]: 1/62 */
    CHECK(n == 3 && r[0].index == 2 && r[1].index == 1 && r[2].index == 0);
    CHECK(near(r[1].rrf, 2.0 / 61) && near(r[1].final_score, 2.0 / 61 * 1.15));
    CHECK(near(r[2].rrf, 1.0 / 62) && near(r[2].final_score, 1.0 / 62));
    CHECK(r[0].final_score >= r[1].final_score && r[1].final_score >= r[2].final_score);
    EXPECT(concordia_aip_rank(NULL, 0, NULL, 0, &n), CONCORDIA_OK);
    CHECK(n == 0);
    c[2].trust_score = 2.0;
    EXPECT(concordia_aip_rank(c, 3, r, 3, &n), CONCORDIA_INVALID_ARGUMENT);
    EXPECT(concordia_aip_rank(c, 3, r, 3, NULL), CONCORDIA_NULL_ARGUMENT);
}

int main(void) {
    test_consensus_digests();
    test_consensus_invitation();
    test_consensus_invitation_redacted();
    test_consensus_commands();
    test_consensus_room();
    test_consensus_artifact();
    test_aip_handles();
    test_aip_keys_and_documents();
    test_aip_envelopes();
    test_aip_credentials();
    test_aip_trust();
    printf("test_aip_consensus: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
