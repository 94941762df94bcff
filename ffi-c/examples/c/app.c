/*
 * The C program of the README's pkg-config walkthrough (ffi-c/README.md): the canonical
 * form and digest of a JSON text, and a signed object verified, through libconcordia.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "concordia.h"

int main(void) {
    const char *json = "{\"b\": 1.50, \"a\": [true, \"\\u00e9\"]}";
    static const uint8_t seed[32] = {7};
    uint8_t canon[64], digest[CONCORDIA_DIGEST_TEXT_LEN], pk[CONCORDIA_PUBLIC_KEY_LEN];
    size_t canon_len = 0, digest_len = 0, pk_len = 0, signed_len = 0;
    concordia_keypair *kp = NULL;
    uint8_t *signed_json;
    concordia_result r;

    if (concordia_version_number() != CONCORDIA_VERSION_NUMBER) {
        fprintf(stderr, "header and library versions differ\n");
        return 1;
    }
    if (concordia_canonicalize((const uint8_t *)json, strlen(json), canon, sizeof canon, &canon_len) != CONCORDIA_OK ||
        concordia_hash((const uint8_t *)json, strlen(json), digest, sizeof digest, &digest_len) != CONCORDIA_OK) {
        return 1;
    }
    printf("%.*s %.*s\n", (int)canon_len, (const char *)canon, (int)digest_len, (const char *)digest);

    if (concordia_keypair_from_seed(seed, sizeof seed, &kp) != CONCORDIA_OK) {
        return 1;
    }
    concordia_keypair_public_key(kp, pk, sizeof pk, &pk_len);
    /* size query, then the signed object */
    concordia_sign_object(kp, canon, canon_len, NULL, 0, &signed_len);
    signed_json = malloc(signed_len);
    r = concordia_sign_object(kp, canon, canon_len, signed_json, signed_len, &signed_len);
    if (r == CONCORDIA_OK) {
        r = concordia_verify_object(signed_json, signed_len, pk, pk_len);
    }
    printf("signed and verified: %s\n", r == CONCORDIA_OK ? "yes" : "no");
    free(signed_json);
    concordia_keypair_free(kp);
    return r == CONCORDIA_OK ? 0 : 1;
}
